#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: everything that proves snaptrace works.
#
#  1. install what is missing (scripts/deps.sh)
#  2. build or find the cached test kernels (KUnit debug kernel with fault
#     injection, PREEMPT_RT, KCSAN, clang-built; arm64 and ARMv7-A,
#     cross-compiled) and the stock Debian kernel images; build the example
#     firmware
#  3. in the background, on one core (the "prelude"): the ring's
#     interleaving explorer (tests/explore/run.sh --check); static checks
#     (checkpatch --strict, sparse, kernel-doc, the docs' map of src/); the
#     ring's orderings under the Linux-kernel memory model (herd7 on
#     tests/litmus/, each test and twin counted); meanwhile, build the
#     module with W=1 against each kernel, no warnings allowed (and sparse
#     against the ARM test kernels, as their architectures), and with
#     DKMS, each row's build made while both boot slots are taken
#  4. boot each kernel in QEMU and run the scenarios, SNAPTRACE_JOBS (2) at a
#     time, from the first module built on (beside the prelude), as the
#     table MATRIX below says (tests/qemu/, its README.md):
#     KUnit suites on the test kernels (arm64 and ARMv7-A on QEMU's virt
#     machine); the ARM remote over ivshmem beside
#     the stock 7.3 kernel, and make shell typed into on 6.12;
#     meanwhile libFuzzer on the parsers for SNAPTRACE_FUZZ_SECONDS (60)
#
# SNAPTRACE_QUICK=1 (make check-quick): the edit loop's subset, the debug
# kernel only: firmware, static checks, the litmus tests, its build, KUnit
# and its scenarios;
# no other kernel, no stock kernel, no DKMS, no fuzzing.
#
# Last line: "N passed, N failed" (KUnit cases + scenario steps + builds +
# one "console clean" check per boot + one per scenario that reported,
# tests/qemu/README.md). Exit status 1 on any failure.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

# The kernel x scenario matrix: one line a run (one boot), started in this
# order: longest first, so that the two slots end together (what each
# costs: Documentation/kernels.rst). Shell words:
#
#   KERNEL SOURCE SCENARIOS [OPTIONS...]
#
# KERNEL  a test kernel's name (its module: out/build/KERNEL), built from
#         SOURCE, SERIES:FRAGMENT+FRAGMENT... (tests/qemu/kernel-kunit.sh
#         on linux-source-SERIES with kconfig/FRAGMENT.config); or "stock",
#         Debian's kernel of headers package SOURCE (lib.sh STOCK_METAS,
#         which make deps installs; module out/build/<kver>); or "newer",
#         the same from trixie-backports, built in a trixie chroot
#         (scripts/newer-stock.sh); or "stock-arm", Debian 12's kernel of
#         the ARM architecture SOURCE (arm64, armhf), its image and
#         headers through a private apt configuration, the module
#         cross-compiled (scripts/stock-arm.sh; module out/build/<kver>).
#         Each kernel and its module is made ready, and counted as a
#         build, on its first line.
# SCENARIOS  tests/scenarios/ names joined by "+", sharing one boot in
#         that order (each leaves the module unloaded; persist_reboot, which
#         panics and reboots the guest six times, --reboots 6, has a run of
#         its own: on the stock x86 kernels; the test kernels' is the
#         short one, persist_reboot.stages=4 and --reboots 3, the
#         architecture's panic, CPU stop, oops and cache cleaning under
#         their checkers, tests/scenarios/persist_reboot.sh); or "remote" (the
#         ARM remote beside the guest, scripts/remote-demo.sh), "shell"
#         (make shell typed into as it runs, with the stock 6.12 module it
#         must find up to date, tests/drivers/shell-check.sh), "shell-persist"
#         (make shell-persist typed into, the same), "dkms" (the
#         module as DKMS builds and installs it, booted), "readme" (the
#         first module of one's own, from README.md to
#         Documentation/api.rst's "Building a module against the API", as
#         a new user follows it, tests/drivers/readme-module.sh: make install
#         into a staging tree, the page's module built against what it
#         installed, both loaded by tests/scenarios/readme-module.sh).
# OPTIONS for tests/qemu/qemu-run.sh (or scripts/remote-demo.sh,
# tests/drivers/shell-check.sh).
# A new boot is a new line; a new kind of run, a name for SCENARIOS and
# its case in the loop at the end.
#
# The persist scenario on the 6.12 debug kernel gets a reserve_mem= region
# that ftrace's trace_instance= also names, which persist_name= must
# refuse (Linux 6.11 on; the stock 6.1 row has none).
# The debug kernels (KASAN, UBSAN, lockdep, kmemleak, fault injection, and
# upstream's remoteproc, which the RT one has too) run everything:
# snaptrace_faults (KUnit) and the faults scenario fail allocations, so
# vmalloc's reports are expected in the boot that runs them (--faults),
# 6.12's first, 7.3's only one. The faults scenario's walks (each
# debugfs command and insmod, allocation by allocation) and the
# snaptrace_faults suite's walks of a remote's boot run on 6.12 only:
# the fault walks of both debug kernels were about half of a warm make
# check's guest time; 7.3 keeps the suite's other walks through the API
# (buffers, snapshot, resize, instances, carveouts), where the kernel's
# own allocations differ between the two versions
# (Documentation/kernels.rst, "What each kernel costs"). The ARM kernels
# (6.12, KASAN, UBSAN, lockdep, kmemleak, upstream's remoteproc; no fault
# injection) run the KUnit suites and the scenarios that need no x86
# address map, in one boot each. The PREEMPT_RT one
# runs the KUnit suites and the remote processors (raw paths, hardirq
# capture); the KCSAN one the KUnit suites (their stress cases) looking
# for data races in our code; the clang one (LLVM=1) builds the module
# with clang, W=1, and runs the KUnit suites; its module is built in the
# ring's 8-byte record layout (make SNAPTRACE_ALIGN8=1: MODULE_ARGS below,
# Documentation/ring-buffer.rst), the one kernels with
# CONFIG_HAVE_64BIT_ALIGNED_ACCESS get, so that every suite runs in both
# layouts without a boot more. These three have no
# failslab: snaptrace_faults says so. The stock kernels run the scenarios
# that share the module in one boot, and on 6.12 and 7.3 what make demo
# shows, so a broken demo fails the check too.
SKIP_NOFAILSLAB='no CONFIG_FAILSLAB'
# The snaptrace_faults suite's two walks of a remote's boot (a boot and a
# shutdown for each of its 320-odd allocations, nine tenths of the suite)
# run on the 6.12 debug kernel; on 7.3 they are turned off
# (snaptrace_kunit.remote_walks=0): the module's unwinding is the same
# code, only the kernel's own allocations differ, and 7.3 keeps the
# suite's other walks (buffers, snapshot, resize, instances, carveouts).
SKIP_WALKS='remote boot walks off'
# make arguments of a test kernel's module (build-module.sh), by KERNEL.
declare -A MODULE_ARGS=([clang]="SNAPTRACE_ALIGN8=1")
SKIP_RT="$SKIP_NOFAILSLAB|PREEMPT_RT: |ok [0-9]+ inject_chain_task_softirq_hardirq_nmi # SKIP"
# The ARM kernels' allow-list (Documentation/testing.rst, KUnit): no
# fault injection (kconfig/arm64.config, armv7.config), and no NMI a test
# can raise on its own CPU: 32-bit ARM has no NMI, and arm64's pseudo-NMI
# (GICv3 priorities) only comes as the kernel's own IPIs (backtrace,
# crash stop, KGDB) or a PMU overflow, which fires after a count, never
# at the hook step a test holds. Every NMI case runs on x86-64, and the
# ring's explorer nests an NMI at every shared access.
SKIP_ARM="$SKIP_NOFAILSLAB|no self-NMI on this architecture|ok [0-9]+ inject_chain_task_softirq_hardirq_nmi # SKIP"
# The persist scenario on the ARM kernels: memmap= is x86's, so the region
# is a reserve_mem= one (and another that ftrace's trace_instance= names,
# which persist_name= must refuse); what only memmap= can make (another
# size at the same address, a reservation too small, a reserved hole) is
# skipped there, saying so, and checked on x86 (Documentation/testing.rst).
SKIP_RESMEM="a reserve_mem= region has one size|memmap= is x86 only"
ARM_PERSIST="reserve_mem=1M:4096:st_persist reserve_mem=1M:4096:st_ftrace trace_instance=st_bm@st_ftrace"
# The test kernels other than kcsan and rt boot with expedited RCU
# grace periods (rcupdate.rcu_expedited=1: every synchronize_rcu() waits
# as synchronize_rcu_expedited() does, the same guarantee): a KUnit case
# waits for a grace period or more at each teardown (a buffer freed, the
# test hook or clock removed), and a normal one is many ticks of an
# emulated CPU; alone, the suites took a third of their time with it.
# That is idle time: it shortens a boot alone (check-quick, the last
# rows), not the CPU a full run needs (Documentation/kernels.rst). The kcsan kernel keeps normal ones, whose
# longer windows give its watchpoints more to see. PREEMPT_RT makes every
# grace period a normal one after boot (rcupdate.rcu_normal_after_boot):
# the rt kernel keeps that (turned off, its suites took 115.5 s instead
# of 125.7, not worth testing another RCU than PREEMPT_RT's own). The
# stock kernels keep their own defaults.
GP_FAST='rcupdate.rcu_expedited=1'
MATRIX=(
	# KERNEL   SOURCE                    SCENARIOS                OPTIONS
	"debug     6.12:kunit+remoteproc+faults kunit+faults          --faults --timeout 3300 --append '$GP_FAST'"
	"debug-7.3 7.3:kunit+remoteproc+faults  kunit+rproc_follow     --faults --timeout 3300 --append '$GP_FAST snaptrace_kunit.remote_walks=0' --allow-skip '$SKIP_WALKS'"
	"debug     6.12:kunit+remoteproc+faults tracefs+remoteproc+cycle+rproc_follow+persist --timeout 1800 --append '$GP_FAST memmap=1M\$0x30000000 memmap=64K\$0x50000000 reserve_mem=1M:4096:st_ftrace trace_instance=st_bm@st_ftrace'"
	"rt        6.12:kunit+remoteproc+rt  kunit+remoteproc+rproc_follow --timeout 1500 --allow-skip '$SKIP_RT'"
	"arm64     6.12:kunit+remoteproc+arm64 kunit+rproc_follow+persist --timeout 1800 --append '$GP_FAST $ARM_PERSIST' --allow-skip '$SKIP_ARM|$SKIP_RESMEM'"
	"armv7     6.12:kunit+remoteproc+armv7 kunit+tracefs+remoteproc+rproc_follow+persist --timeout 1800 --append '$GP_FAST $ARM_PERSIST' --allow-skip '$SKIP_ARM|$SKIP_RESMEM'"
	"debug     6.12:kunit+remoteproc+faults persist_reboot --timeout 1200 --reboots 3 --append '$GP_FAST memmap=1M\$0x30000000 persist_reboot.stages=4'"
	"arm64     6.12:kunit+remoteproc+arm64 persist_reboot --timeout 1200 --reboots 3 --append '$GP_FAST reserve_mem=1M:4096:st_persist persist_reboot.stages=4'"
	"armv7     6.12:kunit+remoteproc+armv7 persist_reboot --timeout 1200 --reboots 3 --append '$GP_FAST reserve_mem=1M:4096:st_persist persist_reboot.stages=4'"
	"clang     6.12:kunit+clang          kunit                    --timeout 900 --append '$GP_FAST' --allow-skip '$SKIP_NOFAILSLAB'"
	"kcsan     6.12:kunit+kcsan          kunit                    --timeout 900 --kcsan --allow-skip '$SKIP_NOFAILSLAB'"
	"stock-arm arm64                     smoke+tracefs+remoteproc --timeout 900"
	"newer     linux-headers-amd64/trixie-backports smoke+tracefs+remoteproc+demo --timeout 900"
	"stock     linux-headers-6.12-amd64  smoke+tracefs+remoteproc+demo --timeout 900"
	"newer     linux-headers-amd64/trixie-backports persist_reboot --timeout 900 --reboots 6 --append 'memmap=1M\$0x30000000'"
	"stock     linux-headers-amd64       persist_reboot           --timeout 900 --reboots 6 --append 'memmap=1M\$0x30000000'"
	"stock     linux-headers-amd64       smoke+tracefs+remoteproc+persist --timeout 900 --append 'memmap=1M\$0x30000000 memmap=64K\$0x50000000'"
	"stock-arm armhf                     smoke+tracefs+remoteproc --timeout 900"
	"stock     linux-headers-6.12-rt-amd64 smoke+tracefs+remoteproc --timeout 900"
	"newer     linux-headers-amd64/trixie-backports remote    --timeout 300"
	"stock     linux-headers-6.12-amd64  shell"
	"stock     linux-headers-6.12-amd64  shell-persist"
	"stock     linux-headers-6.12-amd64  dkms                     --timeout 300"
	"stock     linux-headers-6.12-amd64  readme                   --timeout 300"
	"newer     linux-headers-amd64/trixie-backports dkms      --timeout 300"
)

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
# slot NAME: wait until fewer than $jobs_max runs (boots) are going, and
# clear NAME's old counts. While both slots are taken, the rows to come
# are made ready (prepare_ahead: their kernels' modules, DKMS and README
# builds), so that a slot that frees finds its next run ready rather than
# waiting for a build. The prelude and the fuzzer run beside the boots and
# take no slot.
slot_pids=()
slot() {
	local pid alive
	while :; do
		alive=()
		for pid in "${slot_pids[@]}"; do
			! kill -0 "$pid" 2>/dev/null || alive+=("$pid")
		done
		slot_pids=("${alive[@]}")
		[ "${#slot_pids[@]}" -ge "$jobs_max" ] || break
		prepare_ahead || wait -n || true
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
	# What the run cost, last line of its output (Documentation/kernels.rst's
	# costs; never judged): bash's time, QEMU and every child included.
	(
		TIMEFORMAT="[cpu] $name: %0R s wall, %0U s user, %0S s system"
		time "$@"
	) >"$SNAPTRACE_OUT/runs/$name.out" 2>&1 &
	slot_pids+=($!)
	runs+=("$name")
	say "check: started $name"
}
# run_remote NAME KERNEL MODDIR [args]: the ARM remote beside a guest
# (scripts/remote-demo.sh: two emulators, the ARM one mostly idle in WFI),
# counted as one run.
run_remote() {
	local name=$1 kernel=$2 mods=$3
	shift 3
	run_bg "$name" "$SNAPTRACE_TOP/scripts/remote-demo.sh" --name "$name" \
		--kernel "$kernel" --modules "$mods" --firmware "$SNAPTRACE_OUT/firmware" "$@"
}
# run_shell NAME KERNEL MODDIR [args]: make shell's script, typed into by a
# pipe (tests/drivers/shell-check.sh), counted as one run.
run_shell() {
	local name=$1 kernel=$2 mods=$3
	shift 3
	run_bg "$name" "$SNAPTRACE_TOP/tests/drivers/shell-check.sh" --name "$name" \
		--kernel "$kernel" --modules "$mods" "$@"
}
# kernel_image KDIR: the boot image of a test kernel's tree, by its
# architecture (tests/qemu/kernel-kunit.sh).
kernel_image() {
	if grep -q '^CONFIG_ARM64=y' "$1/.config" 2>/dev/null; then
		echo "$1/arch/arm64/boot/Image"
	elif grep -q '^CONFIG_ARM=y' "$1/.config" 2>/dev/null; then
		echo "$1/arch/arm/boot/zImage"
	else
		echo "$1/arch/x86/boot/bzImage"
	fi
}
# prepare_kernel KERNEL SOURCE: a matrix line's kernel and its module, made
# ready once (and counted: "build NAME"); sets k_image, k_mods, k_name (what
# its runs are named after) and k_ver (its release) under "KERNEL SOURCE".
# Returns 1 when either is missing.
declare -A k_image=() k_mods=() k_name=() k_ver=() k_bad=()
prepare_kernel() {
	local key="$1 $2" series frags=() f kdir v mods r
	[ -z "${k_bad[$key]:-}" ] || return 1
	[ -z "${k_image[$key]:-}" ] || return 0
	k_bad[$key]=1
	case $1 in
	stock | newer)
		if [ "$1" = newer ]; then
			v=$(NEWER_STOCK_META=$2 newer_stock_kver)
		else
			case " $STOCK_METAS " in
			*" $2 "*) ;;
			*) die "check: $2 is not in lib.sh's STOCK_METAS (make deps installs those)" ;;
			esac
			v=$(stock_kver "$2")
		fi
		[ -n "$v" ] || die "cannot resolve $2 (apt-get update?)"
		mods=$SNAPTRACE_OUT/build/$v
		if [ "$1" = newer ]; then
			"$SNAPTRACE_TOP/scripts/newer-stock.sh" build "$v" "$mods"
		else
			"$SNAPTRACE_TOP/scripts/build-module.sh" "/usr/src/linux-headers-$v" "$mods"
		fi || { count 1 "build $v"; return 1; }
		count 0 "build $v"
		k_image[$key]=$("$SNAPTRACE_TOP/scripts/stock-kernel.sh" "$v" | tail -n 1)
		k_name[$key]=$v ;;
	stock-arm)
		# Debian 12's ARM kernel: its image and headers tree, the last
		# two lines of stock-arm.sh; the release is the tree's name.
		r=$("$SNAPTRACE_TOP/scripts/stock-arm.sh" "$2" | tail -n 2) &&
			[ "$(echo "$r" | wc -l)" = 2 ] || { count 1 "stock-arm $2"; return 1; }
		kdir=${r#*$'\n'} v=${kdir##*/linux-headers-}
		mods=$SNAPTRACE_OUT/build/$v
		"$SNAPTRACE_TOP/scripts/build-module.sh" "$kdir" "$mods" ||
			{ count 1 "build $v"; return 1; }
		count 0 "build $v"
		k_image[$key]=${r%%$'\n'*}
		k_name[$key]=$v ;;
	*)
		series=${2%%:*}
		for f in $(echo "${2#*:}" | tr + ' '); do
			frags+=("$SNAPTRACE_TOP/kconfig/$f.config")
		done
		kdir=$(SNAPTRACE_KSERIES=$series "$SNAPTRACE_TOP/tests/qemu/kernel-kunit.sh" \
			"${frags[@]}" | tail -n 1)
		if [ ! -f "$(kernel_image "$kdir")" ]; then
			count 1 "$1 kernel"
			return 1
		fi
		mods=$SNAPTRACE_OUT/build/$1
		# shellcheck disable=SC2086 # MODULE_ARGS holds make words
		"$SNAPTRACE_TOP/scripts/build-module.sh" "$kdir" "$mods" ${MODULE_ARGS[$1]:-} ||
			{ count 1 "build $1"; return 1; }
		count 0 "build $1"
		k_image[$key]=$(kernel_image "$kdir")
		v=$(basename "$kdir")
		k_name[$key]=$1
		# The ARM trees get sparse too, as their architecture (the x86
		# one is the prelude's, on Debian's 6.12 headers).
		case $1 in
		arm64 | armv7)
			if "$SNAPTRACE_TOP/scripts/static-checks.sh" sparse "$kdir"; then
				count 0 "static sparse $1"
			else
				count 1 "static sparse $1"
			fi ;;
		esac ;;
	esac
	k_mods[$key]=$mods k_ver[$key]=$v
	unset "k_bad[$key]"
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
# The checks that need no kernel, in the background beside the first
# builds and boots (one core; the boots take the other): the runner's and
# the kernel cache's self-tests, the explorer, the static checks, the
# litmus tests. Their lines show as they come; their counts are added by
# collect, as a run's ("prelude").
prelude() {
	passed=0 failed=0 skipped=0
	# The runner's judgement of a console, on made-up ones.
	if "$SNAPTRACE_TOP/tests/qemu/runner-selftest.sh" >"$SNAPTRACE_OUT/logs/runner-selftest.log" 2>&1; then
		count 0 "runner self-test"
	else
		cat "$SNAPTRACE_OUT/logs/runner-selftest.log"
		count 1 "runner self-test"
	fi
	# The test kernels' cache across Debian's revisions of linux-source, in a
	# made-up cache.
	if "$SNAPTRACE_TOP/tests/qemu/kernel-cache-selftest.sh" >"$SNAPTRACE_OUT/logs/kernel-cache-selftest.log" 2>&1; then
		count 0 "kernel cache self-test"
	else
		cat "$SNAPTRACE_OUT/logs/kernel-cache-selftest.log"
		count 1 "kernel cache self-test"
	fi
	# The ring's interleaving explorer (tests/explore/): its systematic bound
	# and random budget, in user space, a few minutes on one core.
	if "$SNAPTRACE_TOP/tests/explore/run.sh" --check; then
		count 0 "explore"
	else
		count 1 "explore"
	fi
	for c in checkpatch sparse kernel-doc docs; do
		if "$SNAPTRACE_TOP/scripts/static-checks.sh" "$c"; then
			count 0 "static $c"
		else
			count 1 "static $c"
		fi
	done
	# The ring's orderings under the Linux-kernel memory model: herd7 (in a
	# sid chroot, scripts/herd.sh) on tests/litmus/, each test and each twin
	# counted, and its line shown: what it expects (Never, Sometimes), what
	# herd7 said.
	litmus_log=$SNAPTRACE_OUT/logs/litmus.log
	rm -f "$SNAPTRACE_OUT/litmus/results"
	"$SNAPTRACE_TOP/tests/litmus/run.sh" -o "$SNAPTRACE_OUT/litmus" >"$litmus_log" 2>&1 &&
		litmus_rc=0 || litmus_rc=$?
	sed -n '/ expected /s/^/litmus: /p' "$litmus_log"
	litmus_fails=0
	while read -r n w g res; do
		[ "$res" = PASS ] && count 0 "litmus $n" ||
			{ count 1 "litmus $n (expected $w, got $g)"; litmus_fails=1; }
	done < <(cat "$SNAPTRACE_OUT/litmus/results" 2>/dev/null)
	if [ "$litmus_rc" -ne 0 ] && [ "$litmus_fails" = 0 ]; then
		tail -n 20 "$litmus_log" | sed 's/^/    | /' >&2
		count 1 "litmus (herd7 did not run: $litmus_log)"
	fi

	echo "$passed $failed $skipped" >"$SNAPTRACE_OUT/runs/prelude/counts"
}
# checkpatch's kernel tree, unpacked (once) before anything runs beside it.
kernel_source >/dev/null
mkdir -p "$SNAPTRACE_OUT/runs/prelude"
rm -f "$SNAPTRACE_OUT/runs/prelude/counts"
: >"$SNAPTRACE_OUT/runs/prelude.out"
(
	TIMEFORMAT="[cpu] prelude: %0R s wall, %0U s user, %0S s system"
	time prelude
) &
runs+=(prelude)

# The matrix's rows: each made ready (prepare_row: its kernel and module,
# or its DKMS or README build), then booted in the background when a slot
# is free. While both slots are taken, slot() makes the next rows ready
# (prepare_ahead).
declare -A row_ready=() row_mods=()
# prepare_row I: row I made ready once; returns 1 if it cannot run.
prepare_row() {
	local i=$1 kernel source boot kver d
	[ -z "${row_ready[$i]:-}" ] || return "${row_ready[$i]}"
	row_ready[$i]=1
	eval "set -- ${MATRIX[$i]}"
	kernel=$1 source=$2 boot=$3
	[ "$quick" = 0 ] || [ "$kernel" = debug ] || return 1
	prepare_kernel "$kernel" "$source" || return 1
	kver=${k_ver[$kernel $source]}
	row_mods[$i]=${k_mods[$kernel $source]}
	case $boot in
	dkms)
		# The module as DKMS builds and installs it, booted.
		d=$SNAPTRACE_OUT/build/dkms-$kver
		if [ "$kernel" = newer ]; then
			"$SNAPTRACE_TOP/scripts/newer-stock.sh" dkms "$kver" "$d"
		else
			"$SNAPTRACE_TOP/tests/drivers/dkms-check.sh" "$kver" "$d"
		fi || { count 1 "dkms $kver"; return 1; }
		count 0 "dkms $kver"
		row_mods[$i]=$d ;;
	readme)
		d=$SNAPTRACE_OUT/build/readme-$kver
		"$SNAPTRACE_TOP/tests/drivers/readme-module.sh" \
			"/usr/src/linux-headers-$kver" "$d" ||
			{ count 1 "readme module $kver"; return 1; }
		count 0 "readme module $kver"
		row_mods[$i]=$d ;;
	esac
	row_ready[$i]=0
}
# prepare_ahead: make the next row not yet ready ready; returns 1 if none
# is left.
row_next=0
prepare_ahead() {
	local i
	for ((i = row_next; i < ${#MATRIX[@]}; i++)); do
		[ -z "${row_ready[$i]:-}" ] || continue
		prepare_row "$i" || true
		return 0
	done
	return 1
}
for ((row_i = 0; row_i < ${#MATRIX[@]}; row_i++)); do
	row_next=$((row_i + 1))
	prepare_row "$row_i" || continue
	eval "set -- ${MATRIX[$row_i]}"
	kernel=$1 source=$2 boot=$3
	shift 3
	k=${k_image[$kernel $source]} mods=${row_mods[$row_i]}
	kname=${k_name[$kernel $source]} kver=${k_ver[$kernel $source]}
	case $boot in
	remote) run_remote "remote-$kname" "$k" "$mods" "$@" ;;
	shell)
		# make shell's own way (the stock 6.12 kernel, the module it
		# finds up to date in out/build/), not the matrix line's files.
		run_bg "shell-$kname" "$SNAPTRACE_TOP/tests/drivers/shell-check.sh" \
			--name "shell-$kname" --up-to-date "$@" ;;
	shell-persist) run_shell "shell-persist-$kname" "$k" "$mods" --persist "$@" ;;
	dkms) run_qemu "dkms-$kver" "$k" "$mods" dkms "$@" ;;
	readme) run_qemu "readme-$kver" "$k" "$mods" readme-module "$@" ;;
	*) run_qemu "$boot-$kname" "$k" "$mods" "${boot//+/ }" "$@" ;;
	esac
done
collect
if [ "$quick" = 0 ]; then
	cat "$SNAPTRACE_OUT/fuzz.out"
	count "$(cat "$SNAPTRACE_OUT/fuzz.rc" 2>/dev/null || echo 1)" "fuzz"
fi

say "check: done in $(($(date +%s) - _t0))s; $skipped skipped"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
