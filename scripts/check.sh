#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: everything that proves snaptrace works.
#
#  1. install what is missing (scripts/deps.sh)
#  2. build or find the cached test kernels (KUnit debug kernel with fault
#     injection, PREEMPT_RT, KCSAN, clang-built) and the stock Debian kernel images; build
#     the example firmware
#  3. static checks (checkpatch --strict, sparse, kernel-doc); build the
#     module with W=1 against each kernel, no warnings allowed, and with DKMS
#  4. boot each kernel in QEMU and run the scenarios, SNAPTRACE_JOBS (2) at a
#     time; KUnit suites on the test kernels; the ARM remote over ivshmem
#     beside the stock 6.12 kernel; meanwhile libFuzzer on the parsers for
#     SNAPTRACE_FUZZ_SECONDS (60)
#
# SNAPTRACE_QUICK=1 (make check-quick): the edit loop's subset, the debug
# kernel only: firmware, static checks, its build, KUnit and its scenarios;
# no other kernel, no stock kernel, no DKMS, no fuzzing.
#
# Last line: "N passed, N failed" (KUnit cases + scenario steps + builds +
# one "console clean" check per boot). Exit status 1 on any failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

jobs_max=${SNAPTRACE_JOBS:-2}
quick=${SNAPTRACE_QUICK:-0}
passed=0 failed=0 skipped=0
runs=()
count() { # count OK NAME
	if [ "$1" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); say "FAILED: $2"; fi
}
# run_qemu NAME KERNEL MODDIR SCENARIO [args]: boot in the background (at
# most $jobs_max at once); its output goes to out/runs/NAME.out.
# slot NAME: wait until fewer than $jobs_max runs are going, and clear
# NAME's old counts.
slot() {
	while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do
		wait -n || true
	done
	mkdir -p "$SNAPTRACE_OUT/runs"
	rm -f "$SNAPTRACE_OUT/runs/$1/counts"
}
run_qemu() {
	local name=$1 kernel=$2 mods=$3 scen=$4
	shift 4
	slot "$name"
	"$SNAPTRACE_TOP/scripts/qemu-run.sh" --name "$name" --kernel "$kernel" \
		--modules "$mods" --scenario "$SNAPTRACE_TOP/tests/scenarios/$scen.sh" \
		--firmware "$SNAPTRACE_OUT/firmware" "$@" \
		>"$SNAPTRACE_OUT/runs/$name.out" 2>&1 &
	runs+=("$name")
	say "check: started $name"
}
# run_remote NAME KERNEL MODDIR: the ARM remote beside a guest
# (scripts/remote-demo.sh: two emulators, the ARM one mostly idle in WFI),
# counted as one run.
run_remote() {
	local name=$1 kernel=$2 mods=$3
	slot "$name"
	"$SNAPTRACE_TOP/scripts/remote-demo.sh" --name "$name" --kernel "$kernel" \
		--modules "$mods" --firmware "$SNAPTRACE_OUT/firmware" --timeout 300 \
		>"$SNAPTRACE_OUT/runs/$name.out" 2>&1 &
	runs+=("$name")
	say "check: started $name"
}
# Wait for every run, print their reports in order, add their counts.
collect() {
	local name p f s
	wait || true
	for name in "${runs[@]}"; do
		cat "$SNAPTRACE_OUT/runs/$name.out"
		p=0 f=1 s=0
		[ -f "$SNAPTRACE_OUT/runs/$name/counts" ] &&
			read -r p f s <"$SNAPTRACE_OUT/runs/$name/counts"
		passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	done
	runs=()
}

say "check: cache $SNAPTRACE_CACHE, logs $SNAPTRACE_OUT"
"$SNAPTRACE_TOP/scripts/deps.sh"
if "$SNAPTRACE_TOP/scripts/firmware.sh" "$SNAPTRACE_OUT/firmware"; then
	count 0 "firmware images"
else
	count 1 "firmware images"
fi
# The parsers under libFuzzer, beside the kernel work (one core).
rm -f "$SNAPTRACE_OUT/fuzz.rc"
if [ "$quick" = 0 ]; then
	("$SNAPTRACE_TOP/scripts/fuzz.sh" "${SNAPTRACE_FUZZ_SECONDS:-60}" \
		>"$SNAPTRACE_OUT/fuzz.out" 2>&1; echo $? >"$SNAPTRACE_OUT/fuzz.rc") &
fi
# The runner's judgement of a console, on made-up ones.
if "$SNAPTRACE_TOP/scripts/runner-selftest.sh" >"$SNAPTRACE_OUT/logs/runner-selftest.log" 2>&1; then
	count 0 "runner self-test"
else
	cat "$SNAPTRACE_OUT/logs/runner-selftest.log"
	count 1 "runner self-test"
fi
for c in checkpatch sparse kernel-doc; do
	if "$SNAPTRACE_TOP/scripts/static-checks.sh" "$c"; then
		count 0 "static $c"
	else
		count 1 "static $c"
	fi
done

# Test kernels from Debian's linux-source-6.12: the debug kernel (KASAN,
# UBSAN, lockdep, kmemleak, fault injection) runs everything; the
# PREEMPT_RT one runs the KUnit suites and the remote processors (raw
# paths, hardirq capture); the KCSAN one runs the KUnit suites (their
# stress cases) looking for data races in our code; the clang one (LLVM=1)
# builds the module with clang, W=1, and runs the KUnit suites.
frag=$SNAPTRACE_TOP/kconfig
variants="debug rt kcsan clang"
[ "$quick" = 0 ] || variants=debug
for variant in $variants; do
	extra=()
	case $variant in
	debug)
		frags=("$frag/kunit.config" "$frag/faults.config")
		scens="tracefs remoteproc faults cycle"
		# snaptrace_faults fails allocations: warn_alloc() reports.
		extra=(--faults) ;;
	rt)
		frags=("$frag/kunit.config" "$frag/rt.config")
		scens="remoteproc" ;;
	kcsan)
		frags=("$frag/kunit.config" "$frag/kcsan.config")
		scens="" extra=(--kcsan) ;;
	clang)
		frags=("$frag/kunit.config" "$frag/clang.config")
		scens="" ;;
	esac
	kdir=$("$SNAPTRACE_TOP/scripts/kernel-kunit.sh" "${frags[@]}" | tail -n 1)
	if [ ! -f "$kdir/arch/x86/boot/bzImage" ]; then
		count 1 "$variant kernel"
		continue
	fi
	mods=$SNAPTRACE_OUT/build/$variant
	if ! "$SNAPTRACE_TOP/scripts/build-module.sh" "$kdir" "$mods"; then
		count 1 "build $variant"
		continue
	fi
	count 0 "build $variant"
	run_qemu "kunit-$variant" "$kdir/arch/x86/boot/bzImage" "$mods" kunit \
		--timeout 900 "${extra[@]}"
	for scen in $scens; do
		opts=()
		[ "$scen" = faults ] && opts=(--faults)
		run_qemu "$scen-$variant" "$kdir/arch/x86/boot/bzImage" "$mods" "$scen" \
			--timeout 600 "${opts[@]}"
	done
done

# Stock Debian kernels: build against the headers, boot the image.
stock_metas=$STOCK_METAS
[ "$quick" = 0 ] || stock_metas=""
for meta in $stock_metas; do
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
	# What make demo shows, so a broken demo fails the check too; and
	# the real ARM remote over ivshmem (make demo-remote).
	case "$meta" in
	linux-headers-6.12-amd64)
		run_qemu "demo-$kver" "$vmlinuz" "$mods" demo --timeout 300
		run_remote "remote-$kver" "$vmlinuz" "$mods" ;;
	esac
	# The module as DKMS builds and installs it, booted.
	d=$SNAPTRACE_OUT/build/dkms-$kver
	if "$SNAPTRACE_TOP/scripts/dkms-check.sh" "$kver" "$d"; then
		count 0 "dkms $kver"
		run_qemu "dkms-$kver" "$vmlinuz" "$d" dkms --timeout 300
	else
		count 1 "dkms $kver"
	fi
done
collect
if [ "$quick" = 0 ]; then
	cat "$SNAPTRACE_OUT/fuzz.out"
	count "$(cat "$SNAPTRACE_OUT/fuzz.rc" 2>/dev/null || echo 1)" "fuzz"
fi

say "check: done in $(($(date +%s) - _t0))s; $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
