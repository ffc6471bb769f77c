#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A real remote core beside the x86 guest. qemu-system-arm runs
# fw/arm-remote/ (snaptrace/arm-remote.elf) on the virt machine, its RAM a
# file in /dev/shm shared with the x86 guest as an ivshmem-plain PCI device
# (BAR2); the guest (scripts/qemu-run.sh, stock Debian 6.12 kernel) runs
# tests/scenarios/remote.sh against snaptrace's ivshmem remote.
#
# This script also plays the remote's platform: when the command word of
# the firmware's control block (fw/arm-remote/remote.h) reads CMD_RESET,
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
# under the timeout and are killed, and the shared file is removed, on
# every exit path.
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
	"$SNAPTRACE_TOP/scripts/deps.sh"
	kernel_source >/dev/null # kunit.py, which the runner parses KTAP with
	kver=$(stock_kver linux-headers-6.12-amd64)
	[ -n "$kver" ] || die "cannot resolve linux-headers-6.12-amd64"
	moddir=$SNAPTRACE_OUT/build/$kver
	"$SNAPTRACE_TOP/scripts/build-module.sh" "/usr/src/linux-headers-$kver" "$moddir"
	kernel=$("$SNAPTRACE_TOP/scripts/stock-kernel.sh" "$kver" | tail -n 1)
fi
[ -f "$kernel" ] && [ -d "$moddir" ] || die "remote-demo: need --kernel FILE and --modules DIR"
if [ -z "$fwdir" ]; then
	fwdir=$SNAPTRACE_OUT/firmware
	"$SNAPTRACE_TOP/scripts/firmware.sh" "$fwdir"
fi
elf=$fwdir/snaptrace/arm-remote.elf
[ -f "$elf" ] || die "remote-demo: no $elf (scripts/firmware.sh builds it)"
command -v qemu-system-arm >/dev/null || die "remote-demo: no qemu-system-arm (make deps)"

# The remote's RAM: 64 MiB at 0x40000000; the command word is at
# CTL_DA + 8 = 0x40108008, so at this offset in the file.
ram_size=64M
cmd_off=$((0x108008))
cmd_reset=2

armdir=$SNAPTRACE_OUT/runs/$name-arm
rm -rf "$armdir"
mkdir -p "$armdir"
shm=/dev/shm/snaptrace-$name-$$
watcher=""

cleanup() {
	if [ -n "$watcher" ]; then
		kill "$watcher" 2>/dev/null || true
		wait "$watcher" 2>/dev/null || true
	fi
	# The watcher kills its emulator; this is for a watcher killed hard.
	if [ -f "$armdir/arm.pid" ]; then
		kill "$(cat "$armdir/arm.pid")" 2>/dev/null || true
	fi
	rm -f "$shm"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

rm -f "$shm"
truncate -s "$ram_size" "$shm"

# The platform: runs the ARM emulator, restarts it on CMD_RESET. Bounded
# by the same timeout as the guest.
platform() {
	local deadline=$(($(date +%s) + timeout)) boots=1 cmd pid

	start_arm() {
		timeout -k 5 "$timeout" qemu-system-arm \
			-M virt,memory-backend=mem0 -cpu cortex-a15 \
			-object memory-backend-file,id=mem0,size=$ram_size,mem-path="$shm",share=on \
			-kernel "$elf" -nographic \
			</dev/null >>"$armdir/console.log" 2>&1 &
		echo $! >"$armdir/arm.pid"
	}
	trap 'kill "$(cat "$armdir/arm.pid")" 2>/dev/null; exit 0' TERM
	start_arm
	while [ "$(date +%s)" -lt "$deadline" ]; do
		cmd=$(od -An -tu4 -j "$cmd_off" -N 4 "$shm" | tr -d ' ')
		if [ "$cmd" = "$cmd_reset" ]; then
			pid=$(cat "$armdir/arm.pid")
			kill "$pid" 2>/dev/null || true
			wait "$pid" 2>/dev/null || true
			printf '\0\0\0\0' | dd of="$shm" bs=1 seek="$cmd_off" conv=notrunc status=none
			boots=$((boots + 1))
			echo "remote-demo: restarting the ARM emulator (start $boots)" >>"$armdir/console.log"
			start_arm
		fi
		sleep 0.2
	done
}
platform &
watcher=$!

# snaptrace takes the ivshmem device only if the firmware's control block
# holds its magic (CTL_MAGIC at CTL_DA + 0): wait for the firmware to boot
# before the guest looks.
magic_off=$((0x108000)) magic=4d524e53
for ((i = 0; ; i++)); do
	[ "$(od -An -tx4 -j "$magic_off" -N 4 "$shm" | tr -d ' ')" = "$magic" ] && break
	if [ $i -ge 600 ]; then
		tail -n 20 "$armdir/console.log" >&2 || true
		die "remote-demo[$name]: the ARM firmware wrote no CTL_MAGIC within 120 s"
	fi
	sleep 0.2
done
say "remote-demo[$name]: ARM emulator running $(basename "$elf"), RAM $shm"

rc=0
"$SNAPTRACE_TOP/scripts/qemu-run.sh" --name "$name" --kernel "$kernel" \
	--modules "$moddir" --firmware "$fwdir" \
	--scenario "$SNAPTRACE_TOP/tests/scenarios/remote.sh" --timeout "$timeout" \
	--qemu-args "-object memory-backend-file,id=iv,size=$ram_size,mem-path=$shm,share=on -device ivshmem-plain,memdev=iv" ||
	rc=$?

# One more check from this side: the ARM firmware booted again after the
# guest asked its platform for a reset.
counts=$SNAPTRACE_OUT/runs/$name/counts
if [ -f "$counts" ]; then
	read -r p f s <"$counts"
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
