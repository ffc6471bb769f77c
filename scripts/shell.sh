#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make shell: boot Debian's stock 6.12 kernel in QEMU (TCG) with
# snaptrace.ko loaded and debugfs mounted, and give this terminal a root
# shell on the guest's console, in /sys/kernel/debug/snaptrace, to type
# README.md's session in. exit or Ctrl-D powers the guest off; the status
# is qemu-run.sh --interactive's: 0 when the guest powered itself off.
#
# Usage: shell.sh [--persist] [--kernel VMLINUZ --modules DIR]
#                 [--more-modules DIR] [qemu-run.sh options]
#
# --more-modules DIR (make shell MODULES=DIR): DIR's *.ko files are in the
# guest's /modules beside ours, for insmod; the shell's banner names them.
#
# --persist (make shell-persist): the persistent capture's way
# (Documentation/persist.rst): the kernel's command line keeps 1 MiB at
# 768 MiB (memmap=1M$0x30000000) and names it to the module, which every
# boot loads with persist_address=, persist_size=; a panic (echo c >
# /proc/sysrq-trigger) reboots the guest, up to 20 times, and the next
# boot's shell shows the capture in last_boot/.
#
# Without --kernel: installs only what that needs (SHELL_PKGS, not make
# deps' list), builds the module for the stock 6.12 kernel and fetches the
# kernel as make demo does, without unpacking the kernel source. The
# remotes' firmware is in the guest when make demo, make check or make
# firmware has staged it in out/firmware. A stdin that is not a terminal
# is typed into the shell once the guest runs, then "exit" (a Ctrl-D typed
# ahead of the shell would be lost): tests/drivers/shell-check.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

SHELL_PKGS="build-essential kmod cpio busybox-static qemu-system-x86
 linux-headers-6.12-amd64"

persist=0 rest=()
for a in "$@"; do
	if [ "$a" = --persist ]; then persist=1; else rest+=("$a"); fi
done
set -- ${rest[@]+"${rest[@]}"}
args=()
case " $* " in
*" --kernel "*) ;;
*)
	"$SNAPTRACE_TOP/scripts/deps.sh" $SHELL_PKGS
	demo_stock_module
	args=(--kernel "$DEMO_VMLINUZ" --modules "$DEMO_MODS") ;;
esac
[ ! -d "$SNAPTRACE_OUT/firmware/snaptrace" ] ||
	args+=(--firmware "$SNAPTRACE_OUT/firmware")
append=quiet
if [ $persist = 1 ]; then
	append="quiet memmap=1M\$0x30000000 snaptrace.persist_address=0x30000000 snaptrace.persist_size=1048576"
	args+=(--reboots 20)
fi
args=(--name shell --append "$append" --scenario "$SNAPTRACE_TOP/tests/qemu/guest/shell.sh"
	"${args[@]}" --interactive "$@")
[ ! -t 0 ] || exec "$SNAPTRACE_TOP/tests/qemu/qemu-run.sh" "${args[@]}"
# The status is qemu-run.sh's, not that of the writer it may outlive.
rc=0
{ cat; echo exit; } | "$SNAPTRACE_TOP/tests/qemu/qemu-run.sh" "${args[@]}" ||
	rc=${PIPESTATUS[1]}
exit "$rc"
