#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The runner's console judgement on made-up consoles: what --faults drops
# (drop_fault_reports in judge.sh) and what it must keep; and which skips
# fail a run (unexpected_skips); whether /init ran (init_started) and
# what of the console is judged (split_at_init); and, for --reboots, how
# a console of several boots is judged (judge_boots); what the terminal
# of --interactive shows (console-view.pl). One line per case;
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
# --reboots: consoles of several boots, judged boot by boot (judge_boots,
# drop_expected_reports, count_boots). A boot is made of these pieces.
kstart() {
	echo '[    0.000000] Linux version 6.12.118 (root@vm) (gcc (Debian 12.2.0-14) 12.2.0) #1 SMP'
	echo '[    0.000000] Command line: console=ttyS0 printk.time=1 panic=1 memmap=1M$0x30000000'
	echo '[   19.253421] Run /init as init process'
}
# stage_boot N KIND [CMD]: /init and stage N of scenario x, which runs CMD
# after its step and announces KIND.
stage_boot() {
	echo '@@SNAPTRACE-BOOTED 6.12.118 cpus=2@@'
	echo "# scenario x-$1"
	echo 'ok 1 - record'
	[ -z "${3:-}" ] || "$3"
	echo "@@SNAPTRACE-KTAP-BEGIN scenario-x-$1@@"
	printf 'KTAP version 1\n1..1\nok 1 - record\n'
	echo '@@SNAPTRACE-KTAP-END@@'
	echo "@@SNAPTRACE-EXPECT-$2@@"
}
# last: the last stage, to /init's end.
last() {
	echo '@@SNAPTRACE-BOOTED 6.12.118 cpus=2@@'
	echo '# scenario x'
	echo 'ok 1 - last_boot/info'
	echo '@@SNAPTRACE-SCENARIO-EXIT 0@@'
	echo '@@SNAPTRACE-KTAP-BEGIN scenario-x@@'
	printf 'KTAP version 1\n1..1\nok 1 - last_boot/info\n'
	echo '@@SNAPTRACE-KTAP-END@@'
	echo '@@SNAPTRACE-DONE@@'
	echo '[   47.792370] reboot: Restarting system'
}
# panic_head MSG, panic_stack, panic_tail: a panic report as 6.12 prints
# it (cut short).
panic_head() {
	echo "[   30.732230] Kernel panic - not syncing: ${1:-sysrq triggered crash}"
	echo '[   30.733395] CPU: 0 UID: 0 PID: 61 Comm: sh Tainted: G           O       6.12.118 #1'
	echo '[   30.733968] Tainted: [O]=OOT_MODULE'
	echo '[   30.739066] Call Trace:'
	echo '[   30.739403]  <TASK>'
	echo '[   30.739648]  vpanic+0x1fc/0x458'
	echo '[   30.740784]  ? crash_smp_send_stop+0x42/0x42'
	echo '[   30.741115]  panic+0xad/0xad'
}
panic_stack() {
	echo '[   30.751591]  entry_SYSCALL_64_after_hwframe+0x4b/0x53'
	echo '[   30.752005] RIP: 0033:0x47fbe9'
	echo '[   30.756565]  </TASK>'
}
panic_tail() {
	echo '[   30.766000] Shutting down cpus with NMI'
	echo '[   30.766572] Kernel Offset: disabled'
	echo '[   30.767396] Rebooting in 1 seconds..'
}
panic_report() {
	panic_head "$@"
	panic_stack
	panic_tail
}
# oops_kasan: a NULL dereference where KASAN's shadow check faults first;
# oops_plain: one without KASAN; both up to the "---[ end trace".
oops_kasan() {
	echo '[   40.100000] Oops: general protection fault, probably for non-canonical address 0xdffffc0000000000: 0000 [#1] PREEMPT SMP KASAN NOPTI'
	echo '[   40.100001] KASAN: null-ptr-deref in range [0x0000000000000000-0x0000000000000007]'
	oops_body
}
oops_plain() {
	echo '[   40.100000] BUG: kernel NULL pointer dereference, address: 0000000000000000'
	echo '[   40.100001] #PF: supervisor read access in kernel mode'
	echo '[   40.100002] PGD 0 P4D 0 '
	echo '[   40.100003] Oops: Oops: 0000 [#1] PREEMPT SMP NOPTI'
	oops_body
}
oops_body() {
	echo '[   40.100010] CPU: 1 UID: 0 PID: 70 Comm: sh Tainted: G           O       6.12.118 #1'
	echo '[   40.100011] RIP: 0010:crash_oops+0x12/0x20 [snaptrace_crash]'
	echo '[   40.100012] RSP: 0018:ffffc90000a47d88 EFLAGS: 00010246'
	echo '[   40.100013] Call Trace:'
	echo '[   40.100014]  <TASK>'
	echo '[   40.100015]  full_proxy_write+0x54/0x80'
	echo '[   40.100016]  </TASK>'
	echo '[   40.100017] Modules linked in: snaptrace_crash(O) snaptrace(O)'
	echo '[   40.100018] ---[ end trace 0000000000000000 ]---'
	echo '[   40.100019] RIP: 0010:crash_oops+0x12/0x20 [snaptrace_crash]'
}
warn() {
	echo '[   30.760000] ------------[ cut here ]------------'
	echo '[   30.760001] WARNING: CPU: 0 PID: 61 at snaptrace/src/persist.c:300 st_persist_panic+0x20/0x40 [snaptrace]'
}
# case_reboots NAME MAX WANT: WANT is "clean", "splat" or "problem: TEXT"
# (a problem judge_boots reports, containing TEXT), for the console on
# stdin of a run allowed MAX resets.
case_reboots() {
	local name=$1 max=$2 want=$3 got=clean
	cat >"$tmp/console"
	rm -rf "$tmp/boots"
	mkdir "$tmp/boots"
	judge_boots "$tmp/console" "$tmp/boots" "$max" >"$tmp/problems"
	if [ -s "$tmp/problems" ]; then
		got="problem: $(head -n 1 "$tmp/problems")"
	elif grep -Eq "$SPLAT_RE" "$tmp/boots/judged.log"; then
		got=splat
	fi
	case $want in
	problem:*) [[ $got == problem:*"${want#problem: }"* ]] && got=$want ;;
	esac
	if [ "$got" = "$want" ]; then
		echo "ok - $name"
	else
		echo "not ok - $name: want $want, got $got"
		grep -En "$SPLAT_RE" "$tmp/boots/judged.log" | sed -n '1,5s/^/    | /p' || true
		fails=$((fails + 1))
	fi
}

{ kstart; stage_boot 1 PANIC; panic_report; kstart; last; } |
	case_reboots "a panic announced, then the last stage" 1 clean
{ kstart; stage_boot 1 PANIC; panic_report; kstart; last; } |
	case_reboots "one reset more than allowed" 0 "problem: rebooted more than 0 times"
{ kstart; stage_boot 1 PANIC; panic_report; kstart; stage_boot 2 PANIC; panic_report; kstart; last; } |
	case_reboots "two announced panics, two resets allowed" 2 clean
{ kstart; stage_boot 1 PANIC; panic_report; kstart; echo '@@SNAPTRACE-BOOTED 6.12.118 cpus=2@@'
  echo '# scenario x'; panic_report; kstart; last; } |
	case_reboots "a panic without a marker" 2 "problem: boot 2: unexpected reboot"
{ kstart; echo '@@SNAPTRACE-BOOTED 6.12.118 cpus=2@@'; echo '# scenario x-1'; panic_report
  kstart; last; } |
	case_reboots "a first boot that panics without a marker" 1 \
		"problem: boot 1: unexpected reboot"
{ kstart; stage_boot 1 PANIC; panic_head; panic_stack; warn; panic_tail; kstart; last; } |
	case_reboots "a WARNING from a panic notifier, after the panic's stack" 1 splat
{ kstart; stage_boot 1 PANIC; panic_head; warn; panic_stack; panic_tail; kstart; last; } |
	case_reboots "a WARNING inside the panic's stack" 1 splat
{ kstart; stage_boot 1 PANIC; warn; panic_report; kstart; last; } |
	case_reboots "a WARNING after the marker, before the panic" 1 splat
{ kstart; stage_boot 1 PANIC warn; panic_report; kstart; last; } |
	case_reboots "a WARNING before the marker" 1 splat
{ kstart; stage_boot 1 PANIC; panic_head; echo '[   30.760000] Call Trace:'; panic_stack; panic_tail
  kstart; last; } |
	case_reboots "a second stack inside the panic report" 1 splat
{ kstart; stage_boot 1 PANIC; panic_report; echo '[   30.760000] Call Trace:'; kstart; last; } |
	case_reboots "a stack after the panic report" 1 splat
{ kstart; stage_boot 1 PANIC; panic_report; panic_report; kstart; last; } |
	case_reboots "a second panic" 1 splat
{ kstart; stage_boot 1 PANIC; panic_head; panic_stack
  echo '[   30.766000] ---[ end Kernel panic - not syncing: sysrq triggered crash ]---'
  kstart; last; } |
	case_reboots "the panic's end line" 1 clean
{ kstart; stage_boot 1 PANIC; panic_head "NMI: Not continuing"
  printf '%s\n' '[   30.74]  <NMI>' '[   30.74]  nmi_panic+0x4f/0x60' '[   30.74]  </NMI>' \
	'[   30.74]  <TASK>' '[   30.74] RIP: 0010:default_idle+0xf/0x20'
  panic_stack; panic_tail; kstart; last; } |
	case_reboots "a panic from an NMI" 1 clean
{ kstart; stage_boot 1 OOPS; oops_kasan; panic_report "Fatal exception"; kstart; last; } |
	case_reboots "an announced oops, as KASAN shows it" 1 clean
{ kstart; stage_boot 1 OOPS; oops_plain; panic_tail; echo '[   40.2] Kernel panic - not syncing: Fatal exception'
  panic_tail; kstart; last; } |
	case_reboots "an announced oops, without KASAN" 1 clean
{ kstart; stage_boot 1 OOPS; oops_kasan; echo '[   40.2] BUG: KASAN: slab-use-after-free in st_persist_panic+0x20/0x40'
  panic_report "Fatal exception"; kstart; last; } |
	case_reboots "a KASAN report after the oops" 1 splat
{ kstart; stage_boot 1 OOPS; oops_kasan; oops_plain; panic_report "Fatal exception"; kstart; last; } |
	case_reboots "a second oops" 1 splat
{ kstart; stage_boot 1 PANIC; oops_kasan; panic_report "Fatal exception"; kstart; last; } |
	case_reboots "an oops where a panic was announced" 1 splat
{ kstart; stage_boot 1 OOPS; panic_report; kstart; last; } |
	case_reboots "a panic without the announced oops" 1 "problem: boot 1: announced an oops"
{ kstart; stage_boot 1 REBOOT; echo '[   35.0] reboot: Restarting system'; kstart; last; } |
	case_reboots "an announced reboot" 1 clean
{ kstart; stage_boot 1 REBOOT; panic_report; kstart; last; } |
	case_reboots "a panic where a reboot was announced" 1 splat
{ kstart; stage_boot 1 PANIC; echo '[   35.0] reboot: Restarting system'; kstart; last; } |
	case_reboots "an announced panic that did not come" 1 "problem: boot 1: announced a panic, and reset without"
{ kstart; stage_boot 1 PANIC; echo 'still here'; echo '@@SNAPTRACE-DONE@@'; } |
	case_reboots "an announced panic, and the stage went on to the end" 1 \
		"problem: boot 1: announced a panic, and went on"
{ kstart; stage_boot 1 CRASH; panic_report; kstart; last; } |
	case_reboots "an unknown announcement" 1 "problem: boot 1: unknown"
{ kstart; stage_boot 1 PANIC; panic_report; kstart; last; kstart; } |
	case_reboots "the boot after the end (/init's reboot -f) is not judged" 1 clean
{ kstart; echo '[    1.0] Kernel panic - not syncing: Attempted to kill the idle task!'; panic_tail
  kstart; stage_boot 1 PANIC; panic_report; kstart; last; } |
	case_reboots "a first boot that died before /init is not counted" 1 clean
{ kstart; stage_boot 1 PANIC; panic_report
  kstart; echo '[    3.0] Oops: int3: 0000 [#1] SMP NOPTI'; echo '[    3.0] Kernel panic - not syncing: Fatal exception in interrupt'; panic_tail
  kstart; stage_boot 2 PANIC; panic_report; kstart; last; } |
	case_reboots "a later kernel that died before /init is not counted" 2 clean
{ kstart; stage_boot 1 PANIC; panic_report
  kstart; echo '[    3.0] Oops: int3: 0000 [#1] SMP NOPTI'; echo '[    3.0] Kernel panic - not syncing: Fatal exception in interrupt'; panic_tail
  kstart; stage_boot 2 PANIC; panic_report; kstart; last; } |
	case_reboots "and the boots that ran /init still count" 1 "problem: rebooted more than 1 times"
{ kstart; stage_boot 1 PANIC; panic_report; kstart; echo '[    3.2] BUG: KASAN: wild-memory-access in do_raw_spin_lock'
  last; } |
	case_reboots "a report in a later kernel's own boot is not judged" 1 clean
# case_count NAME WANT: count_boots of the console on stdin is WANT.
case_count() {
	local name=$1 want=$2 got
	cat >"$tmp/console"
	got=$(count_boots "$tmp/console")
	if [ "$got" -eq "$want" ]; then
		echo "ok - $name"
	else
		echo "not ok - $name: want $want boots, got $got"
		fails=$((fails + 1))
	fi
}

{ kstart; stage_boot 1 PANIC; panic_report; kstart; } | case_count "boots: one per kernel start" 2
{ kstart; echo '[    1.0] Kernel panic - not syncing: Attempted to kill the idle task!'; kstart; } |
	case_count "boots: a first one that died before /init does not count" 1
{ kstart; stage_boot 1 PANIC; panic_report; kstart; echo '[    3.0] Oops: int3: 0000 [#1] SMP NOPTI'
  kstart; stage_boot 2 PANIC; panic_report; kstart; } |
	case_count "boots: a later one that died before /init does not count" 3
{ kstart; stage_boot 1 PANIC; panic_report; kstart; } |
	case_count "boots: the current one counts before it reaches /init" 2
{ echo 'SeaBIOS (version 1.16.2-debian-1.16.2-1)'; kstart; stage_boot 1 PANIC; } |
	case_count "boots: firmware output goes with the first" 1
# case_before_init NAME WANT: last_boot_before_init of the console on
# stdin is WANT (yes or no).
case_before_init() {
	local name=$1 want=$2 got=no
	cat >"$tmp/console"
	! last_boot_before_init "$tmp/console" || got=yes
	if [ "$got" = "$want" ]; then
		echo "ok - $name"
	else
		echo "not ok - $name: want $want, got $got"
		fails=$((fails + 1))
	fi
}

{ kstart; stage_boot 1 PANIC; panic_report; kstart; stage_boot 2 PANIC; panic_report
  kstart; echo '[    1.028020] smp: Brought up 1 node, 2 CPUs'; } |
	case_before_init "rerun: a reset's kernel that hung before /init" yes
{ kstart; stage_boot 1 PANIC; panic_report; kstart; stage_boot 2 PANIC; } |
	case_before_init "rerun: not when the last boot ran /init" no
{ kstart; stage_boot 1 PANIC; panic_report; kstart; last; } |
	case_before_init "rerun: not when the run finished" no
printf 'SeaBIOS (version 1.16.2-debian-1.16.2-1)\n' |
	case_before_init "rerun: not with no kernel started" no
# case_view NAME WANT: console-view.pl shows WANT of the console on
# stdin, given at once and given a byte at a time (a read can end inside
# a line or an escape sequence).
case_view() {
	local name=$1 want=$2 view=$SNAPTRACE_TOP/tests/qemu/console-view.pl got1 got2
	cat >"$tmp/console"
	got1=$("$view" <"$tmp/console" | od -c)
	got2=$(perl -e '$| = 1; while (read(STDIN, my $c, 1)) { print $c; select(undef, undef, undef, 0.002) }' \
		<"$tmp/console" | "$view" | od -c)
	want=$(printf '%b' "$want" | od -c)
	if [ "$got1" = "$want" ] && [ "$got2" = "$want" ]; then
		echo "ok - $name"
	else
		echo "not ok - $name: want"; echo "$want"
		echo "got (at once)"; echo "$got1"; echo "got (a byte at a time)"; echo "$got2"
		fails=$((fails + 1))
	fi
}
firmware() {
	printf '\033c\033[?7l\033[2J\033[0mSeaBIOS (version 1.16.2-debian-1.16.2-1)\r\n\n\n'
	printf 'iPXE (http://ipxe.org) 00:03.0 CA00 PCI2.10 PnP PMM+3EFCF000+3EF0F000 CA00\r\n'
	printf 'Press Ctrl-B to configure iPXE (PCI 00:03.0)...\r      \r\n\n\nBooting from ROM...\r\n'
}
{ firmware; printf '@@SNAPTRACE-BOOTED 6.12 cpus=2@@\r\nhere: snaptrace 0.1.0\r\n\r\n'
  printf '/ # cat version\r\n0.1.0\r\nquiet\r\n/ # exit\r\n@@SNAPTRACE-SCENARIO-EXIT 0@@\r\n'
  printf '@@SNAPTRACE-DONE@@\r\nreboot: Restarting system\r\n'; firmware
  printf '\033c\033[?7l\033[2Jqemu-system-x86_64: terminating on signal 15 from pid 9 (bash)\n'; } |
	case_view "view: no firmware, markers, or anything after the end marker" \
		'here: snaptrace 0.1.0\r\n\r\n/ # cat version\r\n0.1.0\r\nquiet\r\n/ # exit\r\n'
{ printf 'here\r\n/ # echo c > /proc/sysrq-trigger\r\n[   9.1] Kernel panic - not syncing: sysrq\r\n'
  firmware; printf '[   0.0] Linux version 6.12\r\n\r\n/ # '; } |
	case_view "view: a panic's reboot shows the kernels, not the firmware" \
		'here\r\n/ # echo c > /proc/sysrq-trigger\r\n[   9.1] Kernel panic - not syncing: sysrq\r\n[   0.0] Linux version 6.12\r\n\r\n/ # '

[ $fails -eq 0 ]
