#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make bench: snaptrace against ftrace's ring buffer and snapshot, side by
# side in one boot of the stock Debian 6.12 kernel in QEMU (TCG, 2 vCPUs);
# with BENCH_ARCH=arm64, of Debian 12's stock arm64 kernel on QEMU's virt
# machine instead.
#
#  1. builds snaptrace.ko (scripts/build-module.sh) and bench/snaptrace_bench.ko
#     against its Module.symvers, both with W=1 and no warning allowed
#  2. boots the stock kernel with both (tests/qemu/qemu-run.sh) and runs
#     tests/scenarios/bench.sh, which loads the bench module once per test
#  3. collects the "BENCH {json}" lines of out/runs/bench/console.log into
#     out/bench/results.json, out/bench/results.md and out/bench/bench.png
#     (gnuplot; bench/report.py makes all but the plot), and prints the
#     table and which goals are met
#
# Every figure is the median of BENCH_RUNS runs with their min and max;
# every comparison is ours/ftrace from the same boot. The goals are
# reported, never asserted: the exit status is 1 only when something did
# not run (build, boot, a missing measurement).
#
# On a dev box, for real-hardware numbers:
#   BENCH_ACCEL=kvm make bench   the same QEMU boot under KVM (-cpu host)
#   BENCH_ACCEL=icount make bench  the same under TCG with -icount: every
#                                time is a count of the guest's instructions
#                                (1 ns each), repeatable to the instruction
#   make bench-here              no QEMU: build against the running kernel's
#                                headers (/lib/modules/$(uname -r)/build) and
#                                run tests/scenarios/bench.sh on this machine,
#                                as root (sudo); the kernel's BENCH lines are
#                                read with dmesg --follow-new. It resizes and
#                                clears ftrace's global buffer (restoring its
#                                size) and needs snaptrace not loaded.
#
# Knobs (environment): BENCH_RUNS (7), BENCH_RECORDS (200000 records per
# write run), BENCH_PAYLOADS (8,64,512), BENCH_SIZES_KB
# (64,256,1024,4096,16384,65536), BENCH_PIPE_RECORDS (16384),
# BENCH_TIMEOUT (480 s for the guest; 1800 s for arm64), BENCH_KVER (the
# kernel of linux-headers-6.12-amd64; x86_64 only), BENCH_ARCH (x86_64, or
# arm64: the guest architecture of the QEMU modes, not of --here).
#
# BENCH_ARCH=arm64 boots Debian 12's stock arm64 kernel (scripts/stock-arm.sh
# fetches its image and headers) on qemu-system-aarch64 -M virt, and
# cross-compiles both modules against its headers (W=1, no warning
# allowed); tcg or icount only (qemu-run.sh: no KVM for ARM guests). Its
# guest gets no memmap= (x86's, and its kernel, 6.1, predates
# reserve_mem=): the persistence row is skipped there, and said so.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

here=0
[ "${1:-}" = --here ] && here=1
accel=${BENCH_ACCEL:-tcg}
arch=${BENCH_ARCH:-x86_64}
case $arch in
x86_64) ;;
arm64)
	[ $here = 0 ] || die "bench: --here measures the running kernel, whatever its architecture: no BENCH_ARCH"
	[ "$accel" != kvm ] || die "bench: BENCH_ARCH=arm64 runs under TCG (BENCH_ACCEL=tcg or icount), not KVM"
	;;
*) die "bench: BENCH_ARCH x86_64 or arm64, not '$arch'" ;;
esac
runs=${BENCH_RUNS:-7}
records=${BENCH_RECORDS:-200000}
payloads=${BENCH_PAYLOADS:-8,64,512}
sizes=${BENCH_SIZES_KB:-64,256,1024,4096,16384,65536}
pipe_records=${BENCH_PIPE_RECORDS:-16384}
timeout=${BENCH_TIMEOUT:-480}
[ "$arch" = x86_64 ] || timeout=${BENCH_TIMEOUT:-1800}
res=$SNAPTRACE_OUT/bench
logs=$SNAPTRACE_OUT/logs

# --- what it needs -----------------------------------------------------------
# A dev box running --here needs only its kernel's headers and gnuplot.
[ $here = 1 ] || "$SNAPTRACE_TOP/scripts/deps.sh"
if ! command -v gnuplot >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	stage "bench: apt-get install gnuplot-nox" "$logs/bench-deps.log" \
		as_root apt-get install -y --no-install-recommends gnuplot-nox
fi
# qemu-run.sh parses the guest's KTAP with the kernel's kunit.py.
[ $here = 1 ] || kernel_source >/dev/null

if [ $here = 1 ]; then
	kver=$(uname -r)
	kdir=/lib/modules/$kver/build
	[ -f "$kdir/Makefile" ] ||
		die "bench: no headers for the running kernel at $kdir: install linux-headers-$kver"
	platform="this machine ($(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1))"
elif [ "$arch" = arm64 ]; then
	# Debian 12's arm64 kernel: the image and the headers tree are
	# stock-arm.sh's last two lines, the release the tree's name.
	r=$("$SNAPTRACE_TOP/scripts/stock-arm.sh" arm64 | tail -n 2)
	[ "$(echo "$r" | wc -l)" = 2 ] || die "bench: scripts/stock-arm.sh arm64 failed"
	vmlinuz=${r%%$'\n'*} kdir=${r#*$'\n'}
	kver=${kdir##*/linux-headers-}
	[ -f "$kdir/Makefile" ] && [ -f "$vmlinuz" ] || die "bench: no arm64 image or headers from scripts/stock-arm.sh"
	case $accel in
	icount) platform="QEMU -M virt -accel tcg,thread=single -cpu max,pauth-impdef=on -icount shift=0,sleep=off -smp 2 -m 1024 (icount: 1 ns = 1 guest instruction, both vCPUs on one host thread)" ;;
	*) platform="QEMU -M virt -accel tcg,thread=multi -cpu max,pauth-impdef=on -smp 2 -m 1024 (TCG: emulated timing)" ;;
	esac
else
	kver=${BENCH_KVER:-$(stock_kver linux-headers-6.12-amd64)}
	[ -n "$kver" ] || die "cannot resolve linux-headers-6.12-amd64 (apt-get update?)"
	kdir=/usr/src/linux-headers-$kver
	[ -f "$kdir/Makefile" ] || die "no headers at $kdir: run 'make deps'"
	case $accel in
	kvm) platform="QEMU -accel kvm -cpu host -smp 2 -m 1024 (KVM: hardware timing)" ;;
	icount) platform="QEMU -accel tcg,thread=single -cpu max -icount shift=0,sleep=off -smp 2 -m 1024, tsc=reliable (icount: 1 ns = 1 guest instruction, both vCPUs on one host thread)" ;;
	*) platform="QEMU -accel tcg,thread=multi -cpu max -smp 2 -m 1024, tsc=reliable (TCG: emulated timing)" ;;
	esac
fi
export BENCH_PLATFORM=$platform

# --- build ---------------------------------------------------------------------
bdir=$SNAPTRACE_OUT/build/bench-$kver
"$SNAPTRACE_TOP/scripts/build-module.sh" "$kdir" "$bdir/snaptrace"
rm -rf "$bdir/src" "$bdir/modules"
mkdir -p "$bdir/src" "$bdir/modules"
cp -r "$SNAPTRACE_TOP/bench" "$SNAPTRACE_TOP/include" "$bdir/src/"
# arm64's headers: cross-compiled, as build-module.sh builds snaptrace.ko.
cross=()
[ "$arch" = x86_64 ] || cross=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
stage "build: snaptrace_bench.ko ($kver)" "$bdir/bench-build.log" \
	make -C "$kdir" M="$bdir/src/bench" W=1 ${cross[@]+"${cross[@]}"} \
	KBUILD_EXTRA_SYMBOLS="$bdir/snaptrace/Module.symvers" modules
# Read after the build: grep cannot read the file its output goes to.
if grep -n 'warning:' "$bdir/bench-build.log" >&2; then
	die "bench: warnings are errors here ($bdir/bench-build.log)"
fi
cp "$bdir/snaptrace/snaptrace.ko" "$bdir/src/bench/snaptrace_bench.ko" "$bdir/modules/"

# --- run -----------------------------------------------------------------------
# Other guests on this host share its CPUs with ours: say so in the results.
busy() { echo "$(pgrep -c qemu-system || true) $(cut -d' ' -f1 /proc/loadavg)"; }
read -r others_before load_before <<<"$(busy)"
[ "$others_before" -eq 0 ] || say "bench: $others_before other QEMU guests are running here: expect noisy timings"
rc=0
if [ $here = 1 ]; then
	console=$SNAPTRACE_OUT/runs/bench-here/console.log
	# sudo keeps only what it is told to: pass the knobs on its command line.
	stage "bench: run on $kver (this machine, as root)" "$logs/bench-run.log" \
		as_root env BENCH_RUNS="$runs" BENCH_RECORDS="$records" BENCH_PAYLOADS="$payloads" \
		BENCH_SIZES_KB="$sizes" BENCH_PIPE_RECORDS="$pipe_records" \
		"$SNAPTRACE_TOP/scripts/bench-here-run.sh" "$SNAPTRACE_OUT/runs/bench-here" \
		"$bdir/modules" || rc=$?
elif [ "$arch" = arm64 ]; then
	# No tsc=reliable: local_clock() is the generic timer's counter, which
	# QEMU derives from its virtual clock (under icount, the instructions).
	# No memmap= either (x86's): the scenario skips the persistence row,
	# which is allowed here and only here.
	append="BENCH_RUNS=$runs BENCH_RECORDS=$records BENCH_PAYLOADS=$payloads"
	append+=" BENCH_SIZES_KB=$sizes BENCH_PIPE_RECORDS=$pipe_records"
	"$SNAPTRACE_TOP/tests/qemu/qemu-run.sh" --name bench --kernel "$vmlinuz" \
		--modules "$bdir/modules" --scenario "$SNAPTRACE_TOP/tests/scenarios/bench.sh" \
		--timeout "$timeout" --append "$append" --accel "$accel" \
		--allow-skip 'write with persistence armed # SKIP' >"$logs/bench-run.log" || rc=$?
	console=$SNAPTRACE_OUT/runs/bench/console.log
else
	vmlinuz=$("$SNAPTRACE_TOP/scripts/stock-kernel.sh" "$kver" | tail -n 1)
	# tsc=reliable: under TCG the clocksource watchdog finds the TSC "skewed"
	# against the HPET once the guest is busy, marks it unstable, and from then
	# on local_clock() is clamped to one tick past the last one: a loop timed
	# with IRQs off would read a few ms whatever it took. (The TSC of a TCG
	# guest follows the host's clock; hardware with a stable TSC never leaves
	# the fast local_clock() path either.)
	append="tsc=reliable BENCH_RUNS=$runs BENCH_RECORDS=$records BENCH_PAYLOADS=$payloads"
	append+=" BENCH_SIZES_KB=$sizes BENCH_PIPE_RECORDS=$pipe_records"
	# The region of the persistence row (Documentation/persist.rst).
	append+=' memmap=1M$0x30000000'
	"$SNAPTRACE_TOP/tests/qemu/qemu-run.sh" --name bench --kernel "$vmlinuz" \
		--modules "$bdir/modules" --scenario "$SNAPTRACE_TOP/tests/scenarios/bench.sh" \
		--timeout "$timeout" --append "$append" --accel "$accel" >"$logs/bench-run.log" || rc=$?
	console=$SNAPTRACE_OUT/runs/bench/console.log
fi
read -r others_after load_after <<<"$(busy)"
host="$(nproc) $others_before $others_after $load_before $load_after"
[ $rc -eq 0 ] || say "bench: the guest run was not clean (see $logs/bench-run.log, $console)"

# --- results -------------------------------------------------------------------
rm -rf "$res"
mkdir -p "$res"
arc=0
python3 "$SNAPTRACE_TOP/bench/report.py" "$console" "$res" "$kver" "$host" || arc=$?

# --- the plot --------------------------------------------------------------------
if [ -s "$res/write.dat" ] && [ -s "$res/snap.dat" ]; then
	read -r -a ctxs <"$res/write.ctx"
	plot_write=""
	for i in "${!ctxs[@]}"; do
		c=$((i + 1))
		plot_write+="'$res/write.dat' index $i using 1:2:3:4 with yerrorlines lc $c lw 2 title 'ours, ${ctxs[$i]}', "
		plot_write+="'$res/write.dat' index $i using 1:5:6:7 with yerrorlines lc $c dt 2 title 'ftrace, ${ctxs[$i]}', "
	done
	gnuplot <<-EOF >"$logs/bench-gnuplot.log" 2>&1 || say "bench: gnuplot failed (see $logs/bench-gnuplot.log)"
		set terminal pngcairo noenhanced size 1400,560 font ",10"
		set output '$res/bench.png'
		set multiplot layout 1,2 title "snaptrace vs ftrace, $kver, ${platform%% (*} (median, bars min-max of $runs runs)"
		set logscale x 2
		set grid
		set key top left
		set title "Write cost (reserve + copy + commit, overwrite, wrapping)"
		set xlabel "payload (bytes)"
		set ylabel "ns per record"
		set xrange [6:700]
		set xtics (8, 64, 512)
		set key inside top left maxrows 4
		set yrange [0:*]
		plot ${plot_write%, }
		set title "Snapshot latency (IRQs off around one call)"
		set xlabel "buffer size per CPU (KiB)"
		set ylabel "ns"
		set logscale x 4
		set xtics (64, 256, 1024, 4096, 16384, 65536)
		set key inside top right
		set xrange [40:100000]
		set yrange [0:*]
		plot '$res/snap.dat' using 1:2:3:4 with yerrorlines lw 2 title 'snaptrace_snapshot()', \
		     '$res/snap.dat' using 1:5:6:7 with yerrorlines dt 2 lw 2 title 'tracing_snapshot()'
		unset multiplot
	EOF
fi
[ -s "$res/bench.png" ] && say "bench: plot $res/bench.png"
say "bench: results $res/results.md, $res/results.json (console $console)"
[ $arc -eq 0 ] || die "bench: some measurements are missing or the clock was unstable (see above)"
[ $rc -eq 0 ] || die "bench: the guest run was not clean: $logs/bench-run.log"
