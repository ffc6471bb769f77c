#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A real remote core beside the x86 guest. qemu-system-arm runs
# fw/arm-remote/ (snaptrace/arm-remote.elf) on the virt machine, its RAM a
# file in /dev/shm shared with the x86 guest as an ivshmem-plain PCI device
# (BAR2); the guest (tests/qemu/qemu-run.sh, stock Debian 6.12 kernel) runs
# tests/scenarios/remote.sh against snaptrace's ivshmem remote.
#
# This script also plays the remote's platform: when the command word of
# the firmware's control block (include/snaptrace/ivshmem.h) reads CMD_RESET,
# which the guest writes through the remote's debugfs "command", it
# restarts the ARM emulator on the same memory, clearing the word first.
# The restarted firmware counts its boots in that memory ("boot 2").
#
# Usage: remote-demo.sh [--name NAME] [--kernel VMLINUZ --modules DIR]
#                       [--firmware DIR] [--timeout SECONDS]
#
# Without --kernel: installs what is missing, builds the module for the
# stock Debian 6.12 kernel, fetches that kernel and the firmware, and prints
# the guest's session (make demo-remote). Results as qemu-run.sh's, in
# out/runs/NAME/ (counts include one more check: the ARM side rebooted),
# the ARM console in out/runs/NAME-arm/console.log. Both emulators run
# under the timeout, each in a session of its own, killed as a whole, and
# the shared file is removed, on every exit path (a TERM exits 143, an INT
# 130); files left by runs killed harder are removed by the next run.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

name=remote kernel="" moddir="" fwdir="" timeout=300
while [ $# -gt 0 ]; do
	case "$1" in
	--name) name=$2 ;;
	--kernel) kernel=$2 ;;
	--modules) moddir=$2 ;;
	--firmware) fwdir=$2 ;;
	--timeout) timeout=$2 ;;
	-h | --help)
		sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0 ;;
	*) die "remote-demo: unknown argument $1 (see --help)" ;;
	esac
	shift 2
done

demo=0
if [ -z "$kernel" ]; then
	demo=1
	demo_stock_kernel qemu-system-arm gcc-arm-none-eabi
	moddir=$DEMO_MODS kernel=$DEMO_VMLINUZ
fi
[ -f "$kernel" ] && [ -d "$moddir" ] || die "remote-demo: need --kernel FILE and --modules DIR"
if [ -z "$fwdir" ]; then
	fwdir=$SNAPTRACE_OUT/firmware
	"$SNAPTRACE_TOP/scripts/firmware.sh" "$fwdir"
fi
elf=$fwdir/snaptrace/arm-remote.elf
[ -f "$elf" ] || die "remote-demo: no $elf (scripts/firmware.sh builds it)"
command -v qemu-system-arm >/dev/null || die "remote-demo: no qemu-system-arm (make deps)"

# The remote's RAM: 64 MiB at SNAPTRACE_IVSHMEM_RAM_DA. Where its control
# block's words are in the file, and their values, from the header the
# firmware and the driver are built with.
ram_size=64M
ivshmem_h=$SNAPTRACE_TOP/include/snaptrace/ivshmem.h
ivshmem() { # ivshmem NAME: SNAPTRACE_IVSHMEM_NAME's value, in decimal
	local v
	v=$(sed -n "s/^#define SNAPTRACE_IVSHMEM_$1[[:space:]]\{1,\}\(0x[0-9a-f]\{1,\}\|[0-9]\{1,\}\)u\{0,1\}\([[:space:]].*\)\{0,1\}\$/\1/p" \
		"$ivshmem_h")
	[ -n "$v" ] || die "remote-demo: no SNAPTRACE_IVSHMEM_$1 in $ivshmem_h"
	echo $((v))
}
ram_da=$(ivshmem RAM_DA)
ctl_off=$(($(ivshmem CTL_DA) - ram_da))
cmd_off=$((ctl_off + $(ivshmem CTL_COMMAND)))
cmd_reset=$(ivshmem CMD_RESET)
magic_off=$((ctl_off + $(ivshmem CTL_MAGIC)))
magic=$(printf '%08x' "$(ivshmem MAGIC)")

armdir=$SNAPTRACE_OUT/runs/$name-arm
rm -rf "$armdir"
mkdir -p "$armdir"
# The shared RAM, named after this shell's pid so that a run killed too
# hard to clean up (SIGKILL) can be told from a live one.
shm=/dev/shm/snaptrace-$name-$$
watcher=""

# Remove the shared files of earlier runs whose shell is gone.
for f in /dev/shm/snaptrace-*-*; do
	[ -e "$f" ] || continue
	pid=${f##*-}
	case $pid in '' | *[!0-9]*) continue ;; esac
	if [ ! -d "/proc/$pid" ]; then
		say "remote-demo[$name]: removing $f (its run, pid $pid, is gone)"
		rm -f "$f"
	fi
done

# in_session PIDFILE CMD...: run CMD in the background in a session of its
# own, its leader's pid in PIDFILE once started. Killing the session kills
# all of it: timeout(1) moves itself and the emulator into a process group
# of their own, but not out of the session.
in_session() {
	local pidfile=$1 i
	shift
	rm -f "$pidfile"
	# shellcheck disable=SC2016 # $$ and $@ are the inner shell's
	setsid sh -c 'echo $$ >"$0"; exec "$@"' "$pidfile" "$@" &
	for ((i = 0; i < 100; i++)); do
		[ -s "$pidfile" ] && return 0
		sleep 0.1
	done
	echo "remote-demo: $1 did not start" >&2
	return 1
}
# kill_session PIDFILE: TERM every process of the session, KILL what is
# left after 5 s.
kill_session() {
	local sid i
	sid=$(cat "$1" 2>/dev/null) || return 0
	[ -n "$sid" ] || return 0
	pkill -TERM -s "$sid" 2>/dev/null || true
	for ((i = 0; i < 50; i++)); do
		pgrep -s "$sid" >/dev/null 2>&1 || break
		sleep 0.1
	done
	pkill -KILL -s "$sid" 2>/dev/null || true
	rm -f "$1"
}

cleanup() {
	if [ -n "$watcher" ]; then
		kill "$watcher" 2>/dev/null || true
		wait "$watcher" 2>/dev/null || true
	fi
	# The watcher kills its emulator; this is for a watcher that is gone.
	kill_session "$armdir/arm.pid"
	kill_session "$armdir/guest.pid"
	rm -f "$shm"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

rm -f "$shm"
truncate -s "$ram_size" "$shm"

# The platform: runs the ARM emulator, restarts it on CMD_RESET. Bounded
# by the same timeout as the guest. It must not die silently: errexit is
# off in it, every failure is logged to the ARM console log and ends it
# with a reason in platform.exit, which the main script reports.
platform() {
	set +e
	local deadline=$(($(date +%s) + timeout)) boots=1 cmd log=$armdir/console.log

	start_arm() {
		in_session "$armdir/arm.pid" timeout -k 5 "$timeout" qemu-system-arm \
			-M virt,memory-backend=mem0 -cpu cortex-a15 \
			-object memory-backend-file,id=mem0,size=$ram_size,mem-path="$shm",share=on \
			-kernel "$elf" -nographic </dev/null >>"$log" 2>&1
	}
	fail() {
		echo "remote-demo: platform: $*" >>"$log"
		echo "$*" >"$armdir/platform.exit"
		kill_session "$armdir/arm.pid"
		exit 1
	}
	trap 'kill_session "$armdir/arm.pid"; exit 0' TERM
	start_arm || fail "cannot start the ARM emulator"
	while [ "$(date +%s)" -lt "$deadline" ]; do
		if ! cmd=$(od -An -tu4 -j "$cmd_off" -N 4 "$shm" | tr -d ' ') || [ -z "$cmd" ]; then
			fail "cannot read the command word in $shm"
		fi
		if [ "$cmd" = "$cmd_reset" ]; then
			kill_session "$armdir/arm.pid"
			printf '\0\0\0\0' | dd of="$shm" bs=1 seek="$cmd_off" conv=notrunc status=none ||
				fail "cannot clear the command word in $shm"
			boots=$((boots + 1))
			echo "remote-demo: restarting the ARM emulator (start $boots)" >>"$log"
			start_arm || fail "cannot restart the ARM emulator"
		elif ! pgrep -s "$(cat "$armdir/arm.pid" 2>/dev/null)" >/dev/null 2>&1; then
			fail "the ARM emulator exited unasked (see above)"
		fi
		sleep 0.2
	done
	echo "deadline" >"$armdir/platform.exit"
	kill_session "$armdir/arm.pid"
}
platform &
watcher=$!

# snaptrace takes the ivshmem device only if the firmware's control block
# holds its magic: wait for the firmware to boot before the guest looks.
for ((i = 0; ; i++)); do
	[ "$(od -An -tx4 -j "$magic_off" -N 4 "$shm" | tr -d ' ')" = "$magic" ] && break
	if [ $i -ge 600 ] || ! kill -0 "$watcher" 2>/dev/null; then
		tail -n 20 "$armdir/console.log" >&2 || true
		die "remote-demo[$name]: the ARM firmware wrote no CTL_MAGIC (platform: $(cat "$armdir/platform.exit" 2>/dev/null || echo running))"
	fi
	sleep 0.2
done
say "remote-demo[$name]: ARM emulator running $(basename "$elf"), RAM $shm"

# The guest in a session of its own too, waited for in the background so
# that a signal is handled at once, not when the guest is done.
rc=0
in_session "$armdir/guest.pid" "$SNAPTRACE_TOP/tests/qemu/qemu-run.sh" --name "$name" \
	--kernel "$kernel" --modules "$moddir" --firmware "$fwdir" \
	--scenario "$SNAPTRACE_TOP/tests/scenarios/remote.sh" --timeout "$timeout" \
	--qemu-arg -object \
	--qemu-arg "memory-backend-file,id=iv,size=$ram_size,mem-path=$shm,share=on" \
	--qemu-arg -device --qemu-arg ivshmem-plain,memdev=iv ||
	die "remote-demo[$name]: cannot start the guest"
wait $! || rc=$?
rm -f "$armdir/guest.pid"

# One more check from this side: the ARM firmware booted again after the
# guest asked its platform for a reset.
counts=$SNAPTRACE_OUT/runs/$name/counts
if [ -f "$counts" ]; then
	read -r p f s <"$counts"
	why=$(cat "$armdir/platform.exit" 2>/dev/null || true)
	if [ -n "$why" ] && [ "$why" != deadline ]; then
		f=$((f + 1))
		rc=1
		say "remote-demo[$name]: FAIL: the platform (ARM side) failed: $why"
	fi
	if grep -q 'arm-remote: boot 2 ' "$armdir/console.log"; then
		p=$((p + 1))
		say "remote-demo[$name]: the ARM side rebooted on the guest's reset"
	else
		f=$((f + 1))
		rc=1
		say "remote-demo[$name]: FAIL: the ARM side never booted a second time ($armdir/console.log)"
	fi
	echo "$p $f $s" >"$counts"
fi

if [ $demo = 1 ]; then
	echo "---- inside the QEMU guest, beside the ARM remote ----"
	sed -n '/^# scenario remote/,/@@SNAPTRACE-SCENARIO-EXIT/p' \
		"$SNAPTRACE_OUT/runs/$name/console.log" |
		grep -vE '^@@|^\[ *[0-9]+\.[0-9]+\] ' | tr -d '\r'
	echo "---- the ARM remote's UART ----"
	tail -n 5 "$armdir/console.log"
	echo "----"
fi
exit $rc
