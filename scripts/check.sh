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
#     beside the stock 6.12 kernel, and make shell typed into on it;
#     meanwhile libFuzzer on the parsers for SNAPTRACE_FUZZ_SECONDS (60)
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
# run_qemu NAME KERNEL MODDIR "SCENARIO..." [args]: boot in the background
# (at most $jobs_max at once), the scenarios in turn; its output goes to
# out/runs/NAME.out.
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
	local name=$1 kernel=$2 mods=$3 s scens=()
	for s in $4; do
		scens+=(--scenario "$SNAPTRACE_TOP/tests/scenarios/$s.sh")
	done
	shift 4
	run_bg "$name" "$SNAPTRACE_TOP/tests/qemu/qemu-run.sh" --name "$name" \
		--kernel "$kernel" --modules "$mods" "${scens[@]}" \
		--firmware "$SNAPTRACE_OUT/firmware" "${allow[@]}" "$@"
}
# run_bg NAME CMD...: CMD in the background when a slot is free, its output
# in out/runs/NAME.out; CMD writes NAME's counts (out/runs/NAME/counts).
run_bg() {
	local name=$1
	shift
	slot "$name"
	"$@" >"$SNAPTRACE_OUT/runs/$name.out" 2>&1 &
	runs+=("$name")
	say "check: started $name"
}
# run_remote NAME KERNEL MODDIR: the ARM remote beside a guest
# (scripts/remote-demo.sh: two emulators, the ARM one mostly idle in WFI),
# counted as one run.
run_remote() {
	run_bg "$1" "$SNAPTRACE_TOP/scripts/remote-demo.sh" --name "$1" --kernel "$2" \
		--modules "$3" --firmware "$SNAPTRACE_OUT/firmware" --timeout 300
}
# run_shell NAME KERNEL MODDIR: make shell's script, typed into by a pipe
# (scripts/shell-check.sh), counted as one run.
run_shell() {
	run_bg "$1" "$SNAPTRACE_TOP/scripts/shell-check.sh" --name "$1" --kernel "$2" \
		--modules "$3"
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
# Skips every run may report: with no ../shared fixtures staged (a user's
# clone), the tests of real images say so. Any other skip fails a run
# (qemu-run.sh --allow-skip).
allow=()
[ -d "$SNAPTRACE_OUT/firmware/snaptrace-fixtures" ] ||
	allow=(--allow-skip 'snaptrace-fixtures/|fixtures not present|fixtures/firmware not staged')
# The parsers under libFuzzer, beside the kernel work (one core).
rm -f "$SNAPTRACE_OUT/fuzz.rc"
if [ "$quick" = 0 ]; then
	("$SNAPTRACE_TOP/scripts/fuzz.sh" "${SNAPTRACE_FUZZ_SECONDS:-60}" \
		>"$SNAPTRACE_OUT/fuzz.out" 2>&1; echo $? >"$SNAPTRACE_OUT/fuzz.rc") &
fi
# The runner's judgement of a console, on made-up ones.
if "$SNAPTRACE_TOP/tests/qemu/runner-selftest.sh" >"$SNAPTRACE_OUT/logs/runner-selftest.log" 2>&1; then
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

# Test kernels from Debian's linux-source-6.12 and linux-source-7.3 (from
# trixie-backports, scripts/lib.sh newer_apt): the debug kernels (KASAN,
# UBSAN, lockdep, kmemleak, fault injection) run everything; the
# PREEMPT_RT one runs the KUnit suites and the remote processors (raw
# paths, hardirq capture); the KCSAN one runs the KUnit suites (their
# stress cases) looking for data races in our code; the clang one (LLVM=1)
# builds the module with clang, W=1, and runs the KUnit suites.
frag=$SNAPTRACE_TOP/kconfig
variants="debug debug-7.3 rt kcsan clang"
[ "$quick" = 0 ] || variants=debug
for variant in $variants; do
	extra=()
	series=6.12
	case $variant in
	*-7.3) series=7.3 ;;
	esac
	case ${variant%-"$series"} in
	debug)
		frags=("$frag/kunit.config" "$frag/faults.config")
		scens="tracefs remoteproc faults cycle"
		# snaptrace_faults fails allocations: warn_alloc() reports.
		extra=(--faults) ;;
	# No failslab in these: snaptrace_faults says so.
	rt)
		frags=("$frag/kunit.config" "$frag/rt.config")
		scens="remoteproc" extra=(--allow-skip 'no CONFIG_FAILSLAB|PREEMPT_RT: |ok [0-9]+ inject_chain_task_softirq_hardirq_nmi # SKIP') ;;
	kcsan)
		frags=("$frag/kunit.config" "$frag/kcsan.config")
		scens="" extra=(--kcsan --allow-skip 'no CONFIG_FAILSLAB') ;;
	clang)
		frags=("$frag/kunit.config" "$frag/clang.config")
		scens="" extra=(--allow-skip 'no CONFIG_FAILSLAB') ;;
	esac
	kdir=$(SNAPTRACE_KSERIES=$series "$SNAPTRACE_TOP/tests/qemu/kernel-kunit.sh" "${frags[@]}" |
		tail -n 1)
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
		opts=(--timeout 600)
		# Hundreds of insmods under KASAN: 15 min on 6.12 and 22 on
		# 7.3 while the machine is shared.
		[ "$scen" = faults ] && opts=(--faults --timeout 2400)
		run_qemu "$scen-$variant" "$kdir/arch/x86/boot/bzImage" "$mods" "$scen" \
			"${opts[@]}"
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
	# One boot for the scenarios that share the module: smoke, tracefs,
	# remoteproc and, on 6.12, what make demo shows, so a broken demo
	# fails the check too. The real ARM remote over ivshmem (make
	# demo-remote) and make shell, typed into, need a boot each.
	case "$meta" in
	linux-headers-6.12-amd64)
		run_qemu "stock-$kver" "$vmlinuz" "$mods" "smoke tracefs remoteproc demo" \
			--timeout 900
		run_remote "remote-$kver" "$vmlinuz" "$mods"
		run_shell "shell-$kver" "$vmlinuz" "$mods" ;;
	*)
		run_qemu "stock-$kver" "$vmlinuz" "$mods" "smoke tracefs remoteproc" \
			--timeout 900 ;;
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

# --- README.md's "Building your own module against the API", as a new user
# follows it (scripts/readme-module.sh): make install into a staging tree,
# the README's module built against what it installed, both loaded on the
# stock 6.12 image by tests/scenarios/readme-module.sh. One line to move.
readme_module() {
	local kver=$1 d=$SNAPTRACE_OUT/build/readme-$1
	if "$SNAPTRACE_TOP/scripts/readme-module.sh" "/usr/src/linux-headers-$kver" "$d"; then
		count 0 "readme module $kver"
		run_qemu "readme-$kver" "$("$SNAPTRACE_TOP/scripts/stock-kernel.sh" "$kver" |
			tail -n 1)" "$d" readme-module --timeout 300
	else
		count 1 "readme module $kver"
	fi
}
[ "$quick" != 0 ] || readme_module "$(stock_kver linux-headers-6.12-amd64)"
# --- end of README.md's module

# Debian's stock kernel from trixie-backports (7.3): its headers want
# gcc-14 and trixie's kbuild, so the module and DKMS build in a cached
# trixie chroot (scripts/newer-stock.sh); booted as the 6.12 one is.
if [ "$quick" = 0 ]; then
	kver=$(newer_stock_kver)
	[ -n "$kver" ] || die "cannot resolve $NEWER_STOCK_META"
	mods=$SNAPTRACE_OUT/build/$kver
	if "$SNAPTRACE_TOP/scripts/newer-stock.sh" build "$kver" "$mods"; then
		count 0 "build $kver"
		vmlinuz=$("$SNAPTRACE_TOP/scripts/stock-kernel.sh" "$kver" | tail -n 1)
		run_qemu "stock-$kver" "$vmlinuz" "$mods" "smoke tracefs remoteproc demo" \
			--timeout 900
		run_remote "remote-$kver" "$vmlinuz" "$mods"
		d=$SNAPTRACE_OUT/build/dkms-$kver
		if "$SNAPTRACE_TOP/scripts/newer-stock.sh" dkms "$kver" "$d"; then
			count 0 "dkms $kver"
			run_qemu "dkms-$kver" "$vmlinuz" "$d" dkms --timeout 300
		else
			count 1 "dkms $kver"
		fi
	else
		count 1 "build $kver"
	fi
fi
collect
if [ "$quick" = 0 ]; then
	cat "$SNAPTRACE_OUT/fuzz.out"
	count "$(cat "$SNAPTRACE_OUT/fuzz.rc" 2>/dev/null || echo 1)" "fuzz"
fi

say "check: done in $(($(date +%s) - _t0))s; $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
