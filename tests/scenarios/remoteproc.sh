#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# remoteproc: simulated remotes driven through debugfs as a developer would:
# load firmware, start, read the traces, crash, read the last trace,
# recover, stop; bad input on every file; the real images of
# ../shared/fixtures/firmware when the run staged them.
. ./lib.sh
st_begin remoteproc

RP=$ST_DIR/remoteproc
R0=$RP/remoteproc0
FX=/lib/firmware/snaptrace-fixtures
# wait_state DIR STATE: poll up to 5 s for a state (recovery runs in a work)
wait_state() {
	local i=0
	while [ $i -lt 50 ]; do
		[ "$(cat "$1/state")" = "$2" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}

st_check "insmod with three remotes and their layouts" \
	insmod $ST_MOD/snaptrace.ko remotes=3 layout=default,stm32mp157,zynqmp-r5
for f in name firmware state crash recovery resource_table carveout_memories subdevs; do
	st_check "remoteproc0/$f exists" test -f $R0/$f
done
st_expect_eq "name" "snaptrace-rproc0" "$(cat $R0/name)"
st_expect_eq "a new remote is offline" "offline" "$(cat $R0/state)"
st_check "no resource table before a start" grep -q 'No resource table found' $R0/resource_table

# --- our ELF64 image: start, traces, crash, last trace, recovery, stop
echo snaptrace/example64.elf >$R0/firmware
st_expect_eq "firmware name kept" "snaptrace/example64.elf" "$(cat $R0/firmware)"
st_check "start" sh -c "echo start >$R0/state"
st_expect_eq "running" "running" "$(cat $R0/state)"
st_expect_eq "five entries decoded" "5" "$(grep -c '^Entry' $R0/resource_table)"
st_check "trace entry decoded with its name" sh -c \
	"grep -A4 'is of type trace' $R0/resource_table | grep -q 'Name log'"
st_check "carveout placed by the host (FW_RSC_ADDR_ANY)" sh -c \
	"grep -A4 'Name: heap' $R0/carveout_memories | grep -q 'Device address: 0xc0000000'"
st_check "devmem recorded" grep -q 'Kind: devmem' $R0/carveout_memories
st_check "trace0 and trace1 exist" test -f $R0/trace0 -a -f $R0/trace1
st_check_fails "no trace2" test -e $R0/trace2
st_check "trace0's captures go to an instance of its own" test -f $ST_DIR/instances/snaptrace-rproc0-trace0/snapshot
st_check_fails "which takes no other writer" sh -c \
	"echo x >$ST_DIR/instances/snaptrace-rproc0-trace0/trace_marker"
st_check_fails "whose snapshot is empty before a crash" sh -c \
	"grep -v '^#' $ST_DIR/instances/snaptrace-rproc0-trace0/snapshot | grep -q ."
sleep 0.5
st_check "trace0 shows the remote's log" grep -q 'hello from the remote' $R0/trace0
st_expect_eq "trace0_last is empty before a crash" "" "$(cat $R0/trace0_last)"
st_check_fails "firmware cannot change while running" sh -c "echo x.elf >$R0/firmware"

echo disabled >$R0/recovery
st_expect_eq "recovery reads disabled" "disabled" "$(cat $R0/recovery)"
st_check "crash (watchdog)" sh -c "echo watchdog >$R0/crash"
st_expect_eq "crashed" "crashed" "$(cat $R0/state)"
cat $R0/trace0 >/tmp/at-crash
st_check "the log stopped with the crash" sh -c \
	"sleep 0.3; cat $R0/trace0 | cmp -s - /tmp/at-crash"
st_check "trace0_last holds the trace at the crash" sh -c \
	"cat $R0/trace0_last | cmp -s - /tmp/at-crash"
st_check "trace0_last is not empty" test -s /tmp/at-crash
grep -v '^#' $ST_DIR/instances/snaptrace-rproc0-trace0/snapshot >/tmp/snap-crash
st_check "trace0's instance's snapshot starts with the crash" \
	grep -qE '^\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: snaptrace-rproc0 trace0: crash #1 \(watchdog\)$' \
	/tmp/snap-crash
st_expect_eq "and holds one line of head" "1" "$(grep -c 'trace0: crash #' /tmp/snap-crash)"
st_check "then the trace at the crash, as text" sh -c \
	"tail -n +2 /tmp/snap-crash | cmp -s - /tmp/at-crash"
st_check "recover" sh -c "echo recover >$R0/recovery"
st_expect_eq "running again" "running" "$(cat $R0/state)"
sleep 0.3
st_check_fails "trace0 shows the new run" sh -c "cat $R0/trace0 | cmp -s - /tmp/at-crash"
st_check "trace0_last still shows the last trace before the crash" sh -c \
	"cat $R0/trace0_last | cmp -s - /tmp/at-crash"

echo enabled >$R0/recovery
st_check "crash (code 2, fatal error) with recovery enabled" sh -c "echo 2 >$R0/crash"
st_check "recovers by itself" wait_state $R0 running
st_check_fails "trace0_last now holds the second crash" sh -c \
	"cat $R0/trace0_last | cmp -s - /tmp/at-crash"
cat $R0/trace0_last >/tmp/last-crash
st_check "stop" sh -c "echo stop >$R0/state"
st_expect_eq "offline" "offline" "$(cat $R0/state)"
st_check_fails "stop removes the trace files" test -e $R0/trace0
st_check_fails "and the last traces' files" test -e $R0/trace0_last
st_check "but not trace0's keeper: its instance stays" \
	test -f $ST_DIR/instances/snaptrace-rproc0-trace0/snapshot
st_check "and the firmware's memory" sh -c "! grep -q carveout $R0/carveout_memories"
st_check "start again" sh -c "echo start >$R0/state"
st_check "trace0_last shows the last crash again" sh -c \
	"cat $R0/trace0_last | cmp -s - /tmp/last-crash"
st_check "trace0_last is not empty" test -s /tmp/last-crash
st_check "stop" sh -c "echo stop >$R0/state"

# --- our ELF32 ARM image
echo snaptrace/example32.elf >$R0/firmware
st_check "start the ELF32 ARM image" sh -c "echo start >$R0/state"
st_check "its trace1 shows the remote's log" sh -c \
	"sleep 0.3; grep -q 'hello from the remote' $R0/trace1"
st_check "stop" sh -c "echo stop >$R0/state"

# --- an image without a resource table: it boots where the layout's
# upstream driver lets it (stm32mp157: stm32_rproc_parse_fw()), with one
# warning and no resources, and is refused on "default"
R1=$RP/remoteproc1
NT=snaptrace/bad64/no-table.elf
NT_WARN="snaptrace-rproc.1: $NT: no resource table found, booting without resources"
dmesg -c >/dev/null
echo $NT >$R0/firmware
st_check_fails "no table: refused on the default layout" sh -c "echo start >$R0/state"
st_expect_eq "... which stays offline" "offline" "$(cat $R0/state)"
echo $NT >$R1/firmware
echo disabled >$R1/recovery
st_check "no table: starts on the stm32mp157 layout" sh -c "echo start >$R1/state"
st_expect_eq "... running" "running" "$(cat $R1/state)"
st_expect_eq "... with one warning naming the image" "1" "$(dmesg | grep -cF "$NT_WARN")"
st_check "... resource_table says there is none" \
	grep -qx 'No resource table found' $R1/resource_table
st_check_fails "... no trace" test -e $R1/trace0
st_check_fails "... no carveout or devmem" grep -qE 'Kind: (carveout|devmem)' $R1/carveout_memories
st_check "... crash" sh -c "echo watchdog >$R1/crash"
st_expect_eq "... crashed" "crashed" "$(cat $R1/state)"
st_check "... recover" sh -c "echo recover >$R1/recovery"
st_expect_eq "... running again" "running" "$(cat $R1/state)"
st_expect_eq "... no second warning: one a boot" "1" "$(dmesg | grep -cF "$NT_WARN")"
st_check "... stop" sh -c "echo stop >$R1/state"
st_expect_eq "... offline" "offline" "$(cat $R1/state)"
echo enabled >$R1/recovery

# --- upstream's lifecycle through "state" (rproc_boot/shutdown/detach)
echo snaptrace/example64.elf >$R0/firmware
echo disabled >$R0/recovery
st_check "start" sh -c "echo start >$R0/state"
st_check "a second start takes a reference (as rproc_boot)" sh -c "echo start >$R0/state"
st_check "the first stop drops it" sh -c "echo stop >$R0/state"
st_expect_eq "... and the remote runs on" "running" "$(cat $R0/state)"
st_check "... with its trace" test -f $R0/trace0
st_check "the last stop stops it" sh -c "echo stop >$R0/state"
st_expect_eq "... offline" "offline" "$(cat $R0/state)"
st_check_fails "one stop too many is refused" sh -c "echo stop >$R0/state"
st_check "start, crash" sh -c "echo start >$R0/state; echo fatal >$R0/crash"
st_expect_eq "crashed" "crashed" "$(cat $R0/state)"
st_check_fails "firmware refused (-EBUSY) while crashed" sh -c "echo x.elf >$R0/firmware"
st_check_fails "detach refused while crashed" sh -c "echo detach >$R0/state"
st_check "start while crashed takes a reference" sh -c "echo start >$R0/state"
st_check "stop drops it" sh -c "echo stop >$R0/state"
st_expect_eq "... still crashed" "crashed" "$(cat $R0/state)"
st_check "enabling recovery recovers a crashed remote" sh -c "echo enabled >$R0/recovery"
st_expect_eq "... running" "running" "$(cat $R0/state)"
echo disabled >$R0/recovery
st_check "detach" sh -c "echo detach >$R0/state"
st_expect_eq "detached" "detached" "$(cat $R0/state)"
st_check_fails "... its trace files are gone" test -e $R0/trace0
st_check_fails "firmware refused (-EBUSY) while detached" sh -c "echo x.elf >$R0/firmware"
st_expect_eq "... unchanged" "snaptrace/example64.elf" "$(cat $R0/firmware)"
st_check_fails "stop refused while detached" sh -c "echo stop >$R0/state"
st_check_fails "crash refused while detached" sh -c "echo 1 >$R0/crash"
st_check_fails "detach refused while detached" sh -c "echo detach >$R0/state"
st_check "start attaches" sh -c "echo start >$R0/state"
st_expect_eq "attached" "attached" "$(cat $R0/state)"
st_check "trace0 is back and the log ran on" sh -c \
	"sleep 0.2; grep -q 'hello from the remote' $R0/trace0"
st_check "stop" sh -c "echo stop >$R0/state"
st_expect_eq "offline" "offline" "$(cat $R0/state)"
echo enabled >$R0/recovery
echo snaptrace/example32.elf >$R0/firmware

# --- bad input: refused, state unchanged
for v in " " "../etc/passwd" "/lib/firmware/x" "a/../b"; do
	st_check_fails "firmware refuses '$v'" sh -c "printf '%s' '$v' >$R0/firmware"
done
st_expect_eq "firmware unchanged" "snaptrace/example32.elf" "$(cat $R0/firmware)"
echo snaptrace/missing.elf >$R0/firmware
st_check_fails "start with a missing file fails" sh -c "echo start >$R0/state"
st_expect_eq "... and the remote stays offline" "offline" "$(cat $R0/state)"
st_check_fails "... with no trace file" test -e $R0/trace0
for v in 3 -1 boom " "; do
	st_check_fails "crash refuses '$v'" sh -c "echo '$v' >$R0/crash"
done
st_check_fails "crash refused while offline" sh -c "echo 1 >$R0/crash"
for v in foo " " restart; do
	st_check_fails "state refuses '$v'" sh -c "echo '$v' >$R0/state"
done
st_check_fails "stop refused while offline" sh -c "echo stop >$R0/state"
for v in maybe " " 1; do
	st_check_fails "recovery refuses '$v'" sh -c "echo '$v' >$R0/recovery"
done
st_check_fails "recover refused unless crashed" sh -c "echo recover >$R0/recovery"

# --- error_log: a bad remote write is logged as ftrace's tracing_log_err()
echo >$ST_DIR/error_log
st_check_fails "state refuses 'restart'" sh -c "echo restart >$R0/state"
cat $ST_DIR/error_log >/tmp/rp-el
cat /tmp/rp-el
st_check "error_log: time, the state file and why" grep -qE \
	'^\[ *[0-9]+\.[0-9]{6}\] snaptrace/remoteproc/remoteproc0/state: error: unrecognised option: want start, stop or detach$' /tmp/rp-el
st_expect_eq "error_log: the command" "  Command: restart" "$(sed -n 2p /tmp/rp-el)"
st_expect_eq "error_log: the caret under the bad word" "           ^" "$(sed -n 3p /tmp/rp-el)"
st_expect_eq "error_log: one error, three lines" "3" "$(wc -l </tmp/rp-el)"
st_check_fails "crash refuses 'boom' while offline" sh -c "echo boom >$R0/crash"
st_check_fails "recovery refuses 'maybe'" sh -c "echo maybe >$R0/recovery"
st_check_fails "recover refused unless crashed" sh -c "echo recover >$R0/recovery"
st_check_fails "firmware refuses a name too long" sh -c \
	"printf '%0300d' 0 >$R0/firmware"
st_check "each refusal was logged, with its file" sh -c \
	"grep -q 'remoteproc0/crash: error: want mmufault' $ST_DIR/error_log && grep -q 'remoteproc0/recovery: error: want enabled' $ST_DIR/error_log && grep -q 'remoteproc0/firmware: error: too long' $ST_DIR/error_log"
# a command the core refuses: error_log says why, in dmesg's words
st_check_fails "start with a missing file fails again" sh -c "echo start >$R0/state"
st_check "error_log: recover and start say why, as dmesg does" sh -c \
	"grep -q 'remoteproc0/recovery: error: recovery: the remote is offline, not crashed\$' $ST_DIR/error_log && grep -q 'remoteproc0/state: error: cannot load firmware snaptrace/missing.elf: -2\$' $ST_DIR/error_log && dmesg | grep -q ': cannot load firmware snaptrace/missing.elf: -2\$'"
echo >$ST_DIR/error_log

# --- broken images, one per bad-input class (scripts/badfw.py): each is
# refused with a message naming the remote, and nothing is left behind
for dir in /lib/firmware/snaptrace/bad64 /lib/firmware/snaptrace/bad32; do
	for f in $dir/*.elf; do
		[ -f "$f" ] || continue
		bad=${dir##*/}/$(basename "$f" .elf)
		echo "snaptrace/$bad.elf" >$R0/firmware
		dmesg -c >/dev/null
		st_check_fails "$bad: refused" sh -c "echo start >$R0/state"
		st_check "$bad: offline, no trace, no carveout, a message" sh -c \
			"[ \"\$(cat $R0/state)\" = offline ] && ! test -e $R0/trace0 && ! grep -q Carveout $R0/carveout_memories && dmesg | grep -q 'snaptrace-rproc.0: '"
	done
done

# --- the real images of ../shared/fixtures/firmware
if [ -d $FX ]; then
	R1=$RP/remoteproc1
	R2=$RP/remoteproc2
	echo snaptrace-fixtures/stm32mp157c-dk2_zephyr-hello.elf >$R1/firmware
	st_check "STM32MP157 Zephyr image starts on the stm32mp157 layout" \
		sh -c "echo start >$R1/state"
	st_check "its trace: da 0x10000371, len 0x401, Zephyr_log" sh -c \
		"grep -A4 'type trace' $R1/resource_table | tr '\n' ' ' | grep -q 'Device Address 0x10000371 *Length 0x401 Bytes.*Name Zephyr_log'"
	st_check "its trace0 shows the log" sh -c \
		"sleep 0.3; grep -q 'hello from the remote' $R1/trace0"
	st_check "stop it" sh -c "echo stop >$R1/state"

	echo snaptrace-fixtures/kv260_r5_rpmsg_multi_services.elf >$R2/firmware
	st_check "KV260 R5 rpmsg image starts on the zynqmp-r5 layout" \
		sh -c "echo start >$R2/state"
	st_check "its vdev (id 7, 2 vrings) is decoded" sh -c \
		"grep -A7 'type vdev' $R2/resource_table | tr '\n' ' ' | grep -q 'ID 7 .*Number of vrings 2'"
	st_check_fails "it has no trace" test -e $R2/trace0
	st_check "its vdev is a started sub-device" grep -q '^vdev0: id 7, .*, started' $R2/subdevs
	st_check "its vrings got notify ids 0 and 1" sh -c \
		"grep -q 'vring0: da 0xffffffff, align 16, num 8, notifyid 0' $R2/subdevs && grep -q 'vring1: .*notifyid 1' $R2/subdevs"
	st_check "resource_table shows them" sh -c \
		"grep -A17 'type vdev' $R2/resource_table | tr '\n' ' ' | grep -q 'Vring 1 .*Notify ID 1'"
	st_check "stop it" sh -c "echo stop >$R2/state"
	st_expect_eq "no sub-device left" "" "$(cat $R2/subdevs)"

	echo snaptrace-fixtures/kv260_r5_zephyr-hello.elf >$R0/firmware
	st_check_fails "an image without a resource table does not start on default" \
		sh -c "echo start >$R0/state"
	st_expect_eq "... the remote stays offline" "offline" "$(cat $R0/state)"
	st_check "... with nothing allocated" sh -c "! grep -q Carveout $R0/carveout_memories"
	st_check "... and a clear message" sh -c "dmesg | grep -q 'has no .resource_table section'"
	echo snaptrace-fixtures/kv260_r5_zephyr-hello.elf >$R2/firmware
	st_check "... but starts on zynqmp-r5, as zynqmp_r5_parse_fw() lets it" \
		sh -c "echo start >$R2/state"
	st_expect_eq "... running" "running" "$(cat $R2/state)"
	st_check "... with a warning naming it" sh -c \
		"dmesg | grep -qF 'kv260_r5_zephyr-hello.elf: no resource table found, booting without resources'"
	st_check_fails "... and no trace" test -e $R2/trace0
	st_check "stop it" sh -c "echo stop >$R2/state"

	echo snaptrace-fixtures/zcu102-split_split_rpu0.elf >$R2/firmware
	st_check_fails "an image whose table is smaller than its header does not start" \
		sh -c "echo start >$R2/state"
	st_expect_eq "... the remote stays offline" "offline" "$(cat $R2/state)"
else
	st_skip "real firmware images" "../shared/fixtures/firmware not staged"
fi

echo snaptrace/example64.elf >$R0/firmware
echo start >$R0/state
st_check "rmmod with a remote running" rmmod snaptrace
st_check_fails "nothing left in debugfs" test -e $ST_DIR
st_check_fails "no platform device left" test -e /sys/bus/platform/devices/snaptrace-rproc.0

st_check_fails "insmod refuses remotes=9" insmod $ST_MOD/snaptrace.ko remotes=9
st_check_fails "insmod refuses a bad layout" insmod $ST_MOD/snaptrace.ko layout=sram:0x0
st_check_fails "... leaving nothing in debugfs" test -e $ST_DIR
st_check_fails "... and no platform device" test -e /sys/bus/platform/devices/snaptrace-rproc.0

st_end
