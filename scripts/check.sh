#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: everything that proves snaptrace works.
#
#  1. install what is missing (scripts/deps.sh)
#  2. build or find the cached KUnit kernel and stock Debian kernel images
#  3. build the module with W=1 against each kernel, no warnings allowed
#  4. boot each kernel in QEMU and run the scenarios; KUnit suites on the
#     KUnit kernel
#
# Last line: "N passed, N failed" (KUnit cases + scenario steps + builds +
# one "console clean" check per boot). Exit status 1 on any failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

passed=0 failed=0 skipped=0
count() { # count OK NAME
	if [ "$1" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); say "FAILED: $2"; fi
}
add_run() { # add_run NAME: add a qemu-run's counts
	local p=0 f=1 s=0
	[ -f "$SNAPTRACE_OUT/runs/$1/counts" ] && read -r p f s <"$SNAPTRACE_OUT/runs/$1/counts"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
}
run_qemu() { # run_qemu NAME KERNEL MODDIR SCENARIO [args]
	local name=$1 kernel=$2 mods=$3 scen=$4
	shift 4
	"$SNAPTRACE_TOP/scripts/qemu-run.sh" --name "$name" --kernel "$kernel" \
		--modules "$mods" --scenario "$SNAPTRACE_TOP/tests/scenarios/$scen.sh" \
		--firmware "$SNAPTRACE_OUT/firmware" "$@" || true
	add_run "$name"
}

say "check: cache $SNAPTRACE_CACHE, logs $SNAPTRACE_OUT"
"$SNAPTRACE_TOP/scripts/deps.sh"
kunit_kdir=$("$SNAPTRACE_TOP/scripts/kernel-kunit.sh" | tail -n 1)
if "$SNAPTRACE_TOP/scripts/firmware.sh" "$SNAPTRACE_OUT/firmware"; then
	count 0 "firmware images"
else
	count 1 "firmware images"
fi
[ -f "$kunit_kdir/arch/x86/boot/bzImage" ] || die "KUnit kernel build failed"

# Modules for the KUnit kernel.
if "$SNAPTRACE_TOP/scripts/build-module.sh" "$kunit_kdir" "$SNAPTRACE_OUT/build/kunit"; then
	count 0 "build kunit"
	run_qemu kunit "$kunit_kdir/arch/x86/boot/bzImage" "$SNAPTRACE_OUT/build/kunit" kunit --timeout 900
	for scen in smoke tracefs remoteproc; do
		run_qemu "$scen-kunit" "$kunit_kdir/arch/x86/boot/bzImage" \
			"$SNAPTRACE_OUT/build/kunit" "$scen" --timeout 600
	done
else
	count 1 "build kunit"
fi

# Stock Debian kernels: build against the headers, boot the image.
for meta in $STOCK_METAS; do
	kver=$(stock_kver "$meta")
	[ -n "$kver" ] || die "cannot resolve $meta (apt-get update?)"
	kdir=/usr/src/linux-headers-$kver
	mods=$SNAPTRACE_OUT/build/$kver
	if ! "$SNAPTRACE_TOP/scripts/build-module.sh" "$kdir" "$mods"; then
		count 1 "build $kver"
		continue
	fi
	count 0 "build $kver"
	vmlinuz=$("$SNAPTRACE_TOP/scripts/stock-kernel.sh" "$kver" | tail -n 1)
	for scen in smoke tracefs remoteproc; do
		run_qemu "$scen-$kver" "$vmlinuz" "$mods" "$scen" --timeout 300
	done
	# What make demo shows, so a broken demo fails the check too.
	case "$meta" in
	linux-headers-6.12-amd64)
		run_qemu "demo-$kver" "$vmlinuz" "$mods" demo --timeout 300 ;;
	esac
done

say "check: done in $(($(date +%s) - _t0))s; $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
