#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make demo: install what is needed, build the module for the stock Debian
# 6.12 kernel, boot that kernel in QEMU, load the module and show its
# debugfs files (the guest's session is printed below the progress lines).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

"$SNAPTRACE_TOP/scripts/deps.sh"
kernel_source >/dev/null # kunit.py, which the runner parses KTAP with
kver=$(stock_kver linux-headers-6.12-amd64)
[ -n "$kver" ] || die "cannot resolve linux-headers-6.12-amd64"
mods=$SNAPTRACE_OUT/build/$kver
"$SNAPTRACE_TOP/scripts/build-module.sh" "/usr/src/linux-headers-$kver" "$mods"
vmlinuz=$("$SNAPTRACE_TOP/scripts/stock-kernel.sh" "$kver" | tail -n 1)
"$SNAPTRACE_TOP/scripts/firmware.sh" "$SNAPTRACE_OUT/firmware"
rc=0
"$SNAPTRACE_TOP/scripts/qemu-run.sh" --name demo --kernel "$vmlinuz" \
	--modules "$mods" --scenario "$SNAPTRACE_TOP/tests/scenarios/demo.sh" \
	--firmware "$SNAPTRACE_OUT/firmware" \
	--timeout 180 >"$SNAPTRACE_OUT/logs/demo-run.log" || rc=$?
echo "---- inside the QEMU guest (Debian $kver) ----"
sed -n '/^# scenario demo/,/@@SNAPTRACE-SCENARIO-EXIT/p' "$SNAPTRACE_OUT/runs/demo/console.log" |
	grep -vE '^@@|^(not )?ok [0-9]+ - |^\[ *[0-9]+\.[0-9]+\] ' | tr -d '\r'
echo "----"
[ $rc -eq 0 ] || { cat "$SNAPTRACE_OUT/logs/demo-run.log"; die "demo failed"; }
say "demo: ok (console log $SNAPTRACE_OUT/runs/demo/console.log)"
