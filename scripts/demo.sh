#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo: install what is needed (lib.sh's DEMO_PKGS, not make deps'
# list, and of the kernel source only kunit.py), build the module for the
# stock Debian 6.12 kernel, boot that kernel in QEMU, load the module and
# show its debugfs files (the guest's session is printed below the progress
# lines).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

demo_stock_kernel
kver=$DEMO_KVER mods=$DEMO_MODS vmlinuz=$DEMO_VMLINUZ
# The demo's remote runs example64.elf; the ARM images too when their
# compiler is there (make deps, make check).
fw=()
command -v arm-none-eabi-gcc >/dev/null || fw=(--x86-only)
"$SNAPTRACE_TOP/scripts/firmware.sh" "${fw[@]}" "$SNAPTRACE_OUT/firmware"
rc=0
"$SNAPTRACE_TOP/tests/qemu/qemu-run.sh" --name demo --kernel "$vmlinuz" \
	--modules "$mods" --scenario "$SNAPTRACE_TOP/tests/scenarios/demo.sh" \
	--firmware "$SNAPTRACE_OUT/firmware" \
	--timeout 180 >"$SNAPTRACE_OUT/logs/demo-run.log" || rc=$?
echo "---- inside the QEMU guest (Debian $kver) ----"
sed -n '/^# scenario demo/,/@@SNAPTRACE-SCENARIO-EXIT/p' "$SNAPTRACE_OUT/runs/demo/console.log" |
	grep -vE '^@@|^(not )?ok [0-9]+ - |^\[ *[0-9]+\.[0-9]+\] ' | tr -d '\r'
echo "----"
[ $rc -eq 0 ] || { cat "$SNAPTRACE_OUT/logs/demo-run.log"; die "demo failed"; }
say "demo: ok (console log $SNAPTRACE_OUT/runs/demo/console.log)"
