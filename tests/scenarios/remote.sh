#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# remote: a real ARM core (qemu-system-arm running fw/arm-remote/) shares
# its RAM with this guest as an ivshmem-plain PCI device; run by
# scripts/remote-demo.sh, which also restarts the ARM side when asked.
# Attach, read its resource table and its live trace, make it hang, see
# the watchdog report the crash with the last trace kept, have the platform
# restart it and see it attached again; detach, boot references, bad
# images and parameters.
. ./lib.sh
st_begin remote

R=$ST_DIR/remoteproc/remoteproc0
DRV=/sys/bus/pci/drivers/snaptrace-ivshmem
# Both emulators share two busy CPUs: a heartbeat can stall for seconds
# without the remote being hung. The watchdog is long (10 min) except
# around the hang, where it is made short through debugfs watchdog_ms.
LONG=600000 SHORT=2000
# wait_state STATE SECONDS: poll the state (the watchdog and the platform
# take their time)
wait_state() {
	local i=0
	while [ $i -lt $(($2 * 10)) ]; do
		[ "$(cat $R/state)" = "$1" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
# last_seq FILE: the number of the last log line, [NNNNNNNN] at its start
last_seq() {
	tail -n 1 "$1" | sed -n 's/^\[\([0-9]*\)\].*/\1/p' | sed 's/^0*\([0-9]\)/\1/'
}
# moving: the heartbeat changes within a second
moving() {
	local a
	a=$(cat $R/heartbeat)
	sleep 1
	[ "$(cat $R/heartbeat)" != "$a" ]
}
bound() {
	ls $DRV 2>/dev/null | grep -q '^0000:'
}

st_check "the ivshmem device is there (1af4:1110)" grep -q '1af41110' /proc/bus/pci/devices
st_check "insmod: no simulated remote; the ivshmem remote attaches" \
	insmod $ST_MOD/snaptrace.ko remotes=0 ivshmem_watchdog_ms=$LONG
st_check "the driver is bound to the device" bound
st_expect_eq "attached (upstream's state for it)" "attached" "$(cat $R/state)"
st_check "its name is the PCI device's" grep -q '^ivshmem-0000:' $R/name
st_expect_eq "firmware: the running image" "snaptrace/arm-remote.elf" "$(cat $R/firmware)"
echo "# cat resource_table"
cat $R/resource_table
st_check "resource_table: the firmware's carveout" sh -c \
	"grep -A6 'is of type carveout' $R/resource_table | grep -q 'Name arm-remote'"
st_check "resource_table: the trace at 0x40110000" sh -c \
	"grep -A1 'is of type trace' $R/resource_table | grep -q 'Device Address 0x40110000'"
st_check "carveout_memories: BAR2 at 0x40000000, the carveout inside it" sh -c \
	"grep -A4 'Name: ivshmem' $R/carveout_memories | grep -q 'Device address: 0x40000000' &&
	 grep -A4 'Name: arm-remote' $R/carveout_memories | grep -q 'Device address: 0x40100000'"
st_check "the heartbeat moves" moving

cat $R/trace0 >/tmp/t1
sleep 1
cat $R/trace0 >/tmp/t2
echo "# cat trace0 (first read, last lines)"
tail -n 3 /tmp/t1
echo "# cat trace0 (a second later, last lines)"
tail -n 3 /tmp/t2
st_check "trace0 shows the remote's log" grep -q 'arm-remote: boot 1 ' /tmp/t1
s1=$(last_seq /tmp/t1)
s2=$(last_seq /tmp/t2)
st_check "a second read shows newer lines ($s1, then $s2)" test "${s2:-0}" -gt "${s1:-0}"
st_expect_eq "trace0_last is empty before a crash" "" "$(cat $R/trace0_last)"

# --- hang, watchdog, last trace
st_expect_eq "watchdog_ms: as loaded" "$LONG" "$(cat $R/watchdog_ms)"
st_check_fails "watchdog_ms below 100 is refused" sh -c "echo 99 >$R/watchdog_ms"
st_check_fails "watchdog_ms not a number is refused" sh -c "echo soon >$R/watchdog_ms"
st_expect_eq "watchdog_ms unchanged" "$LONG" "$(cat $R/watchdog_ms)"
st_check "error_log: both refusals, the caret under 's'" sh -c \
	"grep -q 'watchdog_ms: error: want 100..600000 ms' $ST_DIR/error_log && grep -A2 'watchdog_ms: error: not a number of ms' $ST_DIR/error_log | grep -qx '           ^'"
st_check "a short watchdog for the hang" sh -c "echo $SHORT >$R/watchdog_ms"
st_check "command the remote to hang" sh -c "echo hang >$R/command"
st_check "the watchdog reports the crash" wait_state crashed 30
st_check "the watchdog long again" sh -c "echo $LONG >$R/watchdog_ms"
cat $R/trace0 >/tmp/at-hang
echo "# cat trace0_last (last lines)"
cat $R/trace0_last | tail -n 3
st_check "the last line written is the hang's" sh -c \
	"tail -n 1 /tmp/at-hang | grep -q 'hanging on the host.s command'"
st_expect_eq "trace0_last ends with the last line written before the hang" \
	"$(tail -n 1 /tmp/at-hang)" "$(cat $R/trace0_last | tail -n 1)"
st_check "trace0_last holds the trace at the crash" sh -c \
	"cat $R/trace0_last | cmp -s - /tmp/at-hang"
st_check_fails "the heartbeat is stuck" moving
st_expect_eq "still crashed while it is stuck" "crashed" "$(cat $R/state)"
st_check_fails "recover while it is stuck is refused (EAGAIN)" sh -c "echo recover >$R/recovery"
st_expect_eq "and it stays crashed" "crashed" "$(cat $R/state)"
st_check_fails "command: a bad word is refused" sh -c "echo bogus >$R/command"
st_check "error_log: the bad command" sh -c \
	"grep -A1 'command: error: want hang or reset' $ST_DIR/error_log | grep -q 'Command: bogus'"

# --- the platform restarts the remote; the watchdog sees it back
st_check "ask the platform to restart the remote" sh -c "echo reset >$R/command"
st_check "attached again once the heartbeat resumed" wait_state attached 60
sleep 1
echo "# cat trace0 (after recovery, last lines)"
tail -n 3 $R/trace0
st_check "trace0 shows the new boot" grep -q 'arm-remote: boot 2 ' $R/trace0
st_check "trace0_last still holds the trace at the crash" sh -c \
	"cat $R/trace0_last | cmp -s - /tmp/at-hang"

# --- detach and attach again, boot references (the lifecycle API's)
st_check "detach" sh -c "echo detach >$R/state"
st_expect_eq "detached" "detached" "$(cat $R/state)"
st_check_fails "no trace0 while detached" test -e $R/trace0
st_check "the remote runs on without the host" moving
st_check_fails "stop refused while detached" sh -c "echo stop >$R/state"
st_check "start attaches again" sh -c "echo start >$R/state"
st_expect_eq "attached" "attached" "$(cat $R/state)"
st_check "trace0 is back: the same boot, run on" grep -q 'arm-remote: boot 2 ' $R/trace0
st_check "a second start takes a reference" sh -c "echo start >$R/state"
st_check "the first stop drops it" sh -c "echo stop >$R/state"
st_expect_eq "still attached" "attached" "$(cat $R/state)"

# --- let go, a wrong image, attach again
st_check "the last stop lets go of it" sh -c "echo stop >$R/state"
st_expect_eq "offline" "offline" "$(cat $R/state)"
st_check_fails "no trace0 while offline" test -e $R/trace0
st_check "the remote runs on without the host" moving
echo snaptrace/example32.elf >$R/firmware
st_check_fails "attaching with an image the remote does not run" sh -c "echo start >$R/state"
st_expect_eq "still offline" "offline" "$(cat $R/state)"
echo snaptrace/arm-remote.elf >$R/firmware
st_check "attach again" sh -c "echo start >$R/state"
st_expect_eq "attached" "attached" "$(cat $R/state)"
st_check "rmmod while attached" rmmod snaptrace

# --- BAR2 mapped write-back, as normal memory
st_check "insmod ivshmem_map=wb" \
	insmod $ST_MOD/snaptrace.ko remotes=0 ivshmem_map=wb ivshmem_watchdog_ms=$LONG
st_expect_eq "attached (write-back)" "attached" "$(cat $R/state)"
st_check "trace0 read from write-back memory" grep -q 'arm-remote: boot 2 ' $R/trace0
st_check "rmmod" rmmod snaptrace

# --- bad parameters
st_check_fails "ivshmem_map=bogus is refused" \
	insmod $ST_MOD/snaptrace.ko remotes=0 ivshmem_map=bogus
st_check_fails "ivshmem_watchdog_ms=99 is refused" \
	insmod $ST_MOD/snaptrace.ko remotes=0 ivshmem_watchdog_ms=99
st_check "a control block outside BAR2: insmod works" \
	insmod $ST_MOD/snaptrace.ko remotes=0 ivshmem_ctl=0x50000000
st_check_fails "but the device is not taken" bound
st_check "rmmod" rmmod snaptrace
st_check "no magic at ivshmem_ctl (someone else's ivshmem): insmod works" \
	insmod $ST_MOD/snaptrace.ko remotes=0 ivshmem_ctl=0x40200000
st_check_fails "but the device is left alone" bound
st_check "the probe says why" sh -c "dmesg | grep -q 'no snaptrace remote here'"
st_check "rmmod" rmmod snaptrace
st_check "simulated remotes first: the ivshmem remote comes after" \
	insmod $ST_MOD/snaptrace.ko remotes=1 ivshmem_attach=0 ivshmem_watchdog_ms=$LONG
st_check "remoteproc1 is the ivshmem remote, offline without ivshmem_attach" sh -c \
	"grep -q '^ivshmem-' $ST_DIR/remoteproc/remoteproc1/name &&
	 test \"\$(cat $ST_DIR/remoteproc/remoteproc1/state)\" = offline"
st_check "rmmod" rmmod snaptrace
st_end
