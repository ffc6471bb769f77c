#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot a kernel in QEMU with a test initramfs, run its scenarios, judge it.
#
# Usage: qemu-run.sh --name NAME --kernel IMAGE --modules DIR
#                    --scenario FILE [--firmware DIR] [--timeout SECONDS]
#                    [--append CMDLINE] [--kcsan] [--faults] [--accel tcg|icount|kvm]
#                    [--qemu-args ARGS] [--qemu-arg ARG] [--allow-skip ERE]
#                    [--reboots N] [--interactive] [--more-modules DIR]
#
# IMAGE is an x86-64 bzImage, or an arm64 Image or ARM zImage, booted on
# QEMU's virt machine (qemu-system-aarch64, qemu-system-arm).
# The initramfs holds busybox-static, the *.ko files of DIR under /modules,
# the files of the firmware DIR under /lib/firmware, the scenario as
# /scenario/run.sh with tests/scenarios/lib.sh beside it, and
# tests/qemu/guest/init. The console log goes to out/runs/NAME/console.log.
# --more-modules DIR (repeatable): DIR's *.ko files go to /modules too,
# after those of --modules (one of the same name replaces ours): make
# shell MODULES=DIR.
# --scenario may be repeated: the scenarios then share one boot, in order
# (each its own KTAP document), which saves a boot per scenario; each one
# must leave the module unloaded, as they all check.
#
# The run fails on: a timeout (the guest never printed its end marker), any
# kernel splat on the console from /init on (one in the kernel's own boot,
# before anything of ours is loaded, is shown but not judged), a kmemleak report, or a failed KTAP step
# (scenario steps and KUnit cases, parsed with the kernel's kunit.py).
# Writes "PASSED FAILED SKIPPED" to out/runs/NAME/counts; the run itself
# counts as one more check ("console clean"), and so does each scenario's
# KTAP document (scenario-NAME.ktap, NAME the file's name without .sh:
# the scenario ran to its st_end).
#
# A skip nobody expected fails the run: a KUnit case or scenario step that
# reports "# SKIP" counts as failed (and the run as not clean) unless its
# line matches --allow-skip ERE (repeatable; the patterns add up), which
# names what this kernel or this checkout is known to lack (no failslab,
# no ../shared fixtures). A test that cannot run where it should, such as
# one that finds no debugfs, is a failure, not a quiet skip.
#
# --kcsan: the kernel has KCSAN in strict mode, which reports races in core
# kernel code too: only reports where one of the racing accesses is in a
# snaptrace module fail the run (each is printed); the others are counted
# and otherwise ignored.
# --accel kvm: boot with KVM and the host's CPU model (-cpu host) instead
# of TCG emulating "-cpu max"; for dev boxes where KVM works (it does not on
# the machine CI runs on, so make check never uses it). --accel icount:
# TCG on one host thread with -icount shift=0,sleep=off: the guest's clocks
# count the instructions it executes (one per ns), so a guest's timing of
# its own code is a count of instructions, the same on every run whatever
# the host is doing (make bench BENCH_ACCEL=icount).
# --qemu-args: more arguments for qemu-system-*, split at blanks (no
# quoting, no globbing); --qemu-arg: one more argument, as it is (spaces
# and all). Both may be repeated and add up in order: devices, such as the
# ivshmem-plain of scripts/remote-demo.sh.
# --faults: the scenario injects allocation failures, so vmalloc's
# "vmalloc error" reports (warn_alloc(), with a stack) are expected and
# dropped before the splat check, each up to the end of its stack (100
# lines at most, never past another report); nothing else is.
# --reboots N: the guest may reset, N times at most: QEMU runs without
# -no-reboot, the kernel with panic=1 instead of panic=-1, and /init runs
# the scenario again on every boot (the scenario finds out which stage it
# is from what the boot finds). Before each reset the scenario announces
# it with lib.sh's st_reboot_expected KIND (panic, oops or reboot), which
# prints the stage's KTAP documents and @@SNAPTRACE-EXPECT-KIND@@. The
# console is judged boot by boot (a boot starts at the kernel's "Linux
# version" line): from /init on up to the marker as without --reboots;
# after it, only the report of the announced panic or oops is allowed,
# any other splat still fails. The run also fails on a reset without a
# marker ("unexpected reboot"), an announced panic or oops that did not
# happen, and N+1 resets ("rebooted more than N times", QEMU is stopped
# there). A kernel that dies before /init (nothing of ours loaded: the
# stock kernels' int3 of live text patching under TCG) resets too: that
# boot is not counted, and the next one goes on with the same stage. The
# host stops QEMU (SIGTERM) once @@SNAPTRACE-DONE@@ shows: /init's
# "reboot -f" would boot once more. See tests/qemu/README.md.
# --interactive: the guest's console is this terminal, as with -nographic
# (Ctrl-A x quits QEMU), and is logged to console.log too, where the
# terminal shows it without markers or the emulator's noise (firmware,
# "terminating on signal", what follows @@SNAPTRACE-DONE@@:
# console-view.pl); no timeout, no
# judging but one: the run fails unless QEMU exits 0 after the guest's end
# marker (a panic reboots, and QEMU exits 0 there too). A stdin that is not
# a terminal is held back until /init runs: the serial port drops what
# comes before the kernel opens it. For scripts/shell.sh (make shell).
# With --reboots N too (make shell-persist), a panic or reset boots the
# guest again, N times at most, and QEMU is stopped once the end marker
# shows, as without --interactive; nothing else is judged.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"
. "$(dirname "$0")/judge.sh"

name="" kernel="" moddir="" fwdir="" timeout=300 append="" kcsan=0 faults=0
interactive=0 reboots=""
allow_skip=""
scenarios=() more_mods=()
accel=tcg
qemu_args=()
while [ $# -gt 0 ]; do
	case "$1" in
	--name) name=$2 ;;
	--kernel) kernel=$2 ;;
	--modules) moddir=$2 ;;
	--more-modules) more_mods+=("$2") ;;
	--scenario) scenarios+=("$2") ;;
	--firmware) fwdir=$2 ;;
	--timeout) timeout=$2 ;;
	--append) append=$2 ;;
	--accel) accel=$2 ;;
	--qemu-args)
		read -r -a more <<<"$2"
		qemu_args+=("${more[@]}") ;;
	--qemu-arg) qemu_args+=("$2") ;;
	--allow-skip) allow_skip=${allow_skip:+$allow_skip|}$2 ;;
	--reboots) reboots=$2 ;;
	--kcsan) kcsan=1; shift; continue ;;
	--faults) faults=1; shift; continue ;;
	--interactive) interactive=1; shift; continue ;;
	-h | --help)
		sed -n '3,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0 ;;
	*) die "qemu-run: unknown argument $1 (see --help)" ;;
	esac
	shift 2
done
[ -n "$name" ] && [ -f "$kernel" ] && [ -d "$moddir" ] && [ ${#scenarios[@]} -gt 0 ] ||
	die "qemu-run: need --name, --kernel FILE, --modules DIR, --scenario FILE"
for scenario in "${scenarios[@]}"; do
	[ -f "$scenario" ] || die "qemu-run: no scenario $scenario"
done
if [ -n "$reboots" ]; then
	[[ $reboots =~ ^[0-9]+$ ]] || die "qemu-run: --reboots takes a number, not '$reboots'"
fi
# The guest's architecture, from its image: x86-64 (bzImage) on the PC
# machine, arm64 (Image) or 32-bit ARM (zImage) on QEMU's virt machine,
# each with its serial console and a busybox of its own (lib.sh's
# guest_busybox). x86 runs are as before. (Magic numbers: arm64's
# "ARM\x64" at 0x38, Documentation/arch/arm64/booting.rst; the zImage's
# 0x016f2818 at 0x24, arch/arm/boot/compressed/head.S.)
# An arm64 "-cpu max" has pointer authentication, which Debian's kernels
# use in every function; TCG computes the architected QARMA cipher slowly
# (Debian 12's stock arm64 kernel's smoke+tracefs+remoteproc boot took
# 285 s, 80 s with pauth-impdef=on, both at a load average of 10): take
# QEMU's own cheap algorithm, as a core may (IMPLEMENTATION DEFINED); the
# kernel's use of it is the same.
cpu=max
if [ "$(od -An -tx1 -j56 -N4 "$kernel" | tr -d ' ')" = 41524d64 ]; then
	qemu_sys=qemu-system-aarch64 machine=(-M virt) tty=ttyAMA0 bbarch=arm64
	cpu=max,pauth-impdef=on
elif [ "$(od -An -tx1 -j36 -N4 "$kernel" | tr -d ' ')" = 18286f01 ]; then
	qemu_sys=qemu-system-arm machine=(-M virt) tty=ttyAMA0 bbarch=armhf
else
	qemu_sys=qemu-system-x86_64 machine=() tty=ttyS0 bbarch=
fi
busybox=/bin/busybox
if [ -n "$bbarch" ]; then
	busybox=$(guest_busybox "$bbarch" | tail -n 1) ||
		die "qemu-run: no busybox-static for $bbarch"
	[ "$accel" != kvm ] || die "qemu-run: --accel kvm is for x86 guests"
fi
case $accel in
tcg) accel_args=(-accel tcg,thread=multi -cpu "$cpu") ;;
icount) accel_args=(-accel tcg,thread=single -cpu "$cpu" -icount shift=0,sleep=off) ;;
kvm)
	[ -w /dev/kvm ] || die "qemu-run: --accel kvm needs a writable /dev/kvm"
	accel_args=(-accel kvm -cpu host) ;;
*) die "qemu-run: --accel tcg, icount or kvm, not '$accel'" ;;
esac

run=$SNAPTRACE_OUT/runs/$name
rm -rf "$run"
mkdir -p "$run/root"
console=$run/console.log

# --- initramfs -------------------------------------------------------------
# (Runs under stage(), where errexit is off: every step checks itself.)
mkinitramfs() {
	local r=$run/root a i list
	mkdir -p "$r"/{bin,sbin,proc,sys,dev,tmp,modules,scenario,lib/firmware} || return
	cp "$busybox" "$r/bin/busybox" || return
	# The applets' names from the host's busybox, the same Debian build.
	for a in $(/bin/busybox --list); do
		[ "$a" = busybox ] || ln -sf busybox "$r/bin/$a" || return
	done
	install -m 0755 "$SNAPTRACE_TOP/tests/qemu/guest/init" "$r/init" || return
	ls "$moddir"/*.ko >/dev/null || return
	cp "$moddir"/*.ko "$r/modules/" || return
	for a in ${more_mods[@]+"${more_mods[@]}"}; do
		ls "$a"/*.ko >/dev/null || return
		cp "$a"/*.ko "$r/modules/" || return
	done
	if [ -n "$fwdir" ]; then
		cp -r "$fwdir"/. "$r/lib/firmware/" || return
	fi
	cp "$SNAPTRACE_TOP/tests/scenarios/lib.sh" "$r/scenario/lib.sh" || return
	if [ ${#scenarios[@]} -eq 1 ]; then
		cp "${scenarios[0]}" "$r/scenario/run.sh" || return
	else
		i=0 list=""
		for a in "${scenarios[@]}"; do
			i=$((i + 1))
			cp "$a" "$r/scenario/$i-$(basename "$a")" || return
			list="$list $i-$(basename "$a")"
		done
		printf '%s\n' '#!/bin/sh' \
			'# The scenarios of this boot, in order (made by qemu-run.sh).' \
			'rc=0' "for s in$list; do sh ./\$s || rc=1; done" 'exit $rc' \
			>"$r/scenario/run.sh" || return
	fi
	(cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) >"$run/initramfs.cpio.gz"
}
stage "qemu[$name]: initramfs" "$run/initramfs.log" mkinitramfs

# --- boot ------------------------------------------------------------------
qemu=("$qemu_sys" "${machine[@]}" "${accel_args[@]}" -smp 2 -m 1024 -no-reboot
	-kernel "$kernel" -initrd "$run/initramfs.cpio.gz"
	-append "console=$tty printk.time=1 panic=-1 $append" "${qemu_args[@]}")
if [ -n "$reboots" ]; then
	# A reset boots again, with the same kernel, initramfs and command
	# line; a panic resets after a second. RAM is kept across the reset.
	qemu=("$qemu_sys" "${machine[@]}" "${accel_args[@]}" -smp 2 -m 1024
		-kernel "$kernel" -initrd "$run/initramfs.cpio.gz"
		-append "console=$tty printk.time=1 panic=1 $append" "${qemu_args[@]}")
fi

if [ $interactive = 1 ]; then
	# feed: stdin, once /init runs (or nothing, if QEMU is gone).
	feed() {
		until init_started "$console"; do
			[ -f "$run/qemu.rc" ] && return 0
			sleep 0.2
		done
		cat
	}
	interact() {
		local rc=0 pid
		if [ -z "$reboots" ]; then
			"${qemu[@]}" -nographic 2>&1 || rc=$?
			echo $rc >"$run/qemu.rc"
			return
		fi
		# /init's reboot -f after the end marker would boot again:
		# QEMU is stopped there (SIGTERM: a shutdown), as boot_reboots()
		# does. stdin explicitly: a background job's is /dev/null.
		"${qemu[@]}" -nographic 0<&0 2>&1 &
		pid=$!
		while kill -0 "$pid" 2>/dev/null; do
			if grep -q '@@SNAPTRACE-DONE@@' "$console" ||
				[ "$(count_boots "$console")" -gt $((reboots + 1)) ]; then
				kill -TERM "$pid" 2>/dev/null || true
				break
			fi
			sleep 0.5
		done
		wait "$pid" || rc=$?
		[ $rc -ne 143 ] || rc=0 # stopped here
		echo $rc >"$run/qemu.rc"
	}
	: >"$console"
	say "qemu[$name]: boot $(basename "$kernel"), the console is this terminal"
	# The terminal gets console-view.pl's view: no markers, no firmware.
	view=$SNAPTRACE_TOP/tests/qemu/console-view.pl
	if [ -t 0 ]; then
		interact | tee "$console" | "$view" || true
	else
		feed | interact | tee "$console" | "$view" || true
	fi
	rc=$(cat "$run/qemu.rc" 2>/dev/null || echo 1)
	if [ "$rc" -ne 0 ]; then
		say "qemu[$name]: FAIL: QEMU exited $rc (console log $console)"
	elif ! grep -q '@@SNAPTRACE-DONE@@' "$console"; then
		say "qemu[$name]: FAIL: guest did not finish (crash?; console log $console)"
		rc=1
	fi
	exit "$rc"
fi

boot() {
	local rc=0
	if [ -n "$reboots" ]; then
		boot_reboots || rc=$?
		return $rc
	fi
	timeout -k 10 "$timeout" "${qemu[@]}" \
		-display none -monitor none -serial stdio </dev/null >"$console" 2>&1 || rc=$?
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "qemu-run: TIMEOUT after ${timeout}s" >>"$console"
	fi
	return $rc
}
# boot_reboots: boot() for --reboots: QEMU in the background, the console
# watched every second; QEMU is stopped (SIGTERM, which it takes as a
# shutdown) once the guest printed its end marker, or once it booted more
# than N+1 times, which fails the run anyway. The timeout still holds; a
# console silent for SNAPTRACE_SILENCE seconds (300) is a hung guest
# (Debian's 7.3 and the 6.12 debug kernel were seen to stop after "Run
# /init" on a warm reset under TCG, and to sit there until the timeout,
# up to 30 minutes): QEMU is stopped and the run judged as a timeout's.
boot_reboots() {
	local rc=0 pid stop="" size=-1 now heard=$SECONDS silence=${SNAPTRACE_SILENCE:-300}
	: >"$console"
	timeout -k 10 "$timeout" "${qemu[@]}" \
		-display none -monitor none -serial stdio </dev/null >"$console" 2>&1 &
	pid=$!
	while kill -0 "$pid" 2>/dev/null; do
		now=$(stat -c %s "$console")
		[ "$now" = "$size" ] || size=$now heard=$SECONDS
		if grep -q '@@SNAPTRACE-DONE@@' "$console"; then
			stop="the guest finished"
		elif [ "$(count_boots "$console")" -gt $((reboots + 1)) ]; then
			stop="the guest booted more than $((reboots + 1)) times"
		elif [ $((SECONDS - heard)) -ge "$silence" ]; then
			stop="no console output for ${silence}s: a hung guest" rc=124
			echo "qemu-run: $stop, stopped" >>"$console"
		fi
		[ -z "$stop" ] || break
		sleep 1
	done
	if [ -n "$stop" ]; then
		echo "qemu-run: $stop: stopping QEMU"
		kill -TERM "$pid" 2>/dev/null || true
		wait "$pid" || true
		return $rc
	fi
	wait "$pid" || rc=$?
	if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
		echo "qemu-run: TIMEOUT after ${timeout}s" >>"$console"
	fi
	return $rc
}
stage "qemu[$name]: boot $(basename "$kernel"), scenario $(basename -a "${scenarios[@]}" | tr '\n' ' ')timeout ${timeout}s" \
	"$run/qemu.log" boot || true
# A kernel that dies before /init runs has loaded nothing of ours: under
# TCG the stock PREEMPT_RT kernel has been seen to oops in its own boot
# (an int3 of live text patching in sched_clock_cpu, "Modules linked in:"
# empty). Keep that console, say so, and boot once more; a second such
# death, or any death after /init started, is judged as usual.
if ! init_started "$console" && [ -s "$console" ]; then
	mv "$console" "$run/console.before-init.log"
	say "qemu[$name]: the kernel died before /init (nothing of ours loaded; $run/console.before-init.log): booting again"
	stage "qemu[$name]: boot again" "$run/qemu.log" boot || true
fi

# A --reboots run whose last kernel stopped before /init (Debian's 7.3
# under TCG was seen hung after bringing up its CPUs, on the fourth warm
# reboot of persist_reboot) loaded nothing of ours in that boot: run the
# whole sequence once more, from a fresh QEMU (the stages before it need
# their resets and the RAM they kept). A second such stop is judged as
# usual.
if [ -n "$reboots" ] && ! grep -q '@@SNAPTRACE-DONE@@' "$console" &&
	init_started "$console" && last_boot_before_init "$console"; then
	mv "$console" "$run/console.first-run.log"
	say "qemu[$name]: a reset's kernel stopped before /init (nothing of ours loaded; $run/console.first-run.log): the run again"
	stage "qemu[$name]: run again" "$run/qemu.log" boot || true
fi

# --- judge -----------------------------------------------------------------
problems=()
grep -q '@@SNAPTRACE-DONE@@' "$console" ||
	problems+=("guest did not finish (timeout, hang or crash)")

# The kernel's own boot, before /init, loads nothing of ours: a report
# there is the kernel's (7.3's KASAN has been seen to report a wild access
# from an interrupt in early boot under TCG, once in five boots). It is
# shown, and not judged; everything from /init on is.
judged=$console
if [ -n "$reboots" ]; then
	# Boot by boot (judge.sh's judge_boots): each from /init on, and after
	# a boot's announcement only what the announced reset prints itself.
	rm -rf "$run/boots"
	mkdir -p "$run/boots"
	judge_boots "$console" "$run/boots" "$reboots" >"$run/boots/problems"
	while IFS= read -r p; do
		say "qemu[$name]: $p"
	done <"$run/boots/notes"
	while IFS= read -r p; do
		problems+=("$p")
	done <"$run/boots/problems"
	judged=$run/console.from-init.log
	cp "$run/boots/judged.log" "$judged"
elif init_started "$console"; then
	judged=$run/console.from-init.log
	split_at_init "$console" "$run/console.boot.log" "$judged"
	if grep -Eq "$SPLAT_RE" "$run/console.boot.log"; then
		say "qemu[$name]: a kernel report before /init (nothing of ours loaded), not judged:"
		grep -En "$SPLAT_RE" "$run/console.boot.log" | sed -n '1,5s/^/    boot: /p'
	fi
fi

# KCSAN reports run from "BUG: KCSAN:" to the next "=====" line.
if [ $kcsan = 1 ]; then
	from=$judged
	judged=$run/console.nokcsan.log
	# A report is ours when one of the racing accesses is in our code:
	# the top frame under a "read/write ... to 0x... by" line is in a
	# snaptrace module (being merely deeper in a stack, as a test that
	# sleeps is, does not count).
	awk -v ours="$run/kcsan-ours.log" -v others="$run/kcsan-others.log" '
		/BUG: KCSAN:/ { inb = 1; mine = 0; top = 0; blk = $0 "\n"; next }
		inb && /=====/ { inb = 0; f = mine ? ours : others;
				 printf "%s", blk >> f; print "----" >> f; next }
		inb && top { top = 0; if ($0 ~ /\[snaptrace/) mine = 1 }
		inb && /(read|write).* to 0x[0-9a-f]+ .*by / { top = 1 }
		inb { blk = blk $0 "\n"; next }
		{ print }
	' "$from" >"$judged"
	touch "$run/kcsan-ours.log" "$run/kcsan-others.log"
	n_others=$(grep -c '^----$' "$run/kcsan-others.log" || true)
	say "qemu[$name]: KCSAN reports outside snaptrace (ignored): $n_others"
	if grep -q . "$run/kcsan-ours.log"; then
		problems+=("KCSAN reports a data race involving snaptrace")
		# sed -n with a range, not head: head's early exit would kill the
		# writer with SIGPIPE, which pipefail and set -e turn into the
		# runner's own death before it reports.
		sed -n '1,60s/^/    kcsan: /p' "$run/kcsan-ours.log"
	fi
fi

if [ $faults = 1 ]; then
	drop_fault_reports <"$judged" >"$run/console.nowarnalloc.log"
	judged=$run/console.nowarnalloc.log
fi

if grep -Eq "$SPLAT_RE" "$judged"; then
	problems+=("kernel splat on the console")
	grep -En "$SPLAT_RE" "$judged" | sed -n '1,20s/^/    splat: /p'
fi
# grep without -q: it reads to the end, so sed is never killed by SIGPIPE,
# which pipefail would turn into "no leak" for a report longer than a pipe.
if sed -n '/@@SNAPTRACE-KMEMLEAK-BEGIN@@/,/@@SNAPTRACE-KMEMLEAK-END@@/p' "$console" |
	grep 'unreferenced object' >/dev/null; then
	problems+=("kmemleak reports a leak")
fi

passed=0 failed=0 skipped=0
kunit_py=$(ls "$SNAPTRACE_CACHE"/src/linux-source-*/tools/testing/kunit/kunit.py 2>/dev/null | head -n 1)
[ -n "$kunit_py" ] || die "kunit.py not found: run tests/qemu/kernel-kunit.sh first"
# Cut the KTAP documents out of the console log: one file each.
awk -v dir="$run" '
	/@@SNAPTRACE-KTAP-BEGIN / { f = $2; sub(/@@.*/, "", f); out = dir "/" f ".ktap"; next }
	/@@SNAPTRACE-KTAP-END@@/ { out = ""; next }
	out != "" { sub(/\r$/, ""); print > out }
' "$console"
if [ -n "$reboots" ]; then
	# Each stage names its own document: two of one name, from two boots,
	# would be read as one.
	dups=$(grep -o '@@SNAPTRACE-KTAP-BEGIN [^@]*@@' "$console" | sort | uniq -d |
		sed 's/@@SNAPTRACE-KTAP-BEGIN //; s/@@$//' | tr '\n' ' ' || true)
	[ -z "$dups" ] || problems+=("KTAP document(s) printed twice (two stages of one name?): $dups")
fi
ndocs=0
for doc in "$run"/*.ktap; do
	[ -f "$doc" ] || continue
	ndocs=$((ndocs + 1))
	python3 "$kunit_py" parse "$doc" >"${doc%.ktap}.parsed" 2>&1 || true
	summary=$(grep -o 'Ran [0-9]* tests:.*' "${doc%.ktap}.parsed" | tail -n 1)
	p=$(echo "$summary" | grep -o 'passed: [0-9]*' | grep -o '[0-9]*' || echo 0)
	f=$(echo "$summary" | grep -o 'failed: [0-9]*' | grep -o '[0-9]*' || echo 0)
	s=$(echo "$summary" | grep -o 'skipped: [0-9]*' | grep -o '[0-9]*' || echo 0)
	# A crashed or errored case counts as failed.
	c=$(echo "$summary" | grep -o 'crashed: [0-9]*' | grep -o '[0-9]*' || echo 0)
	e=$(echo "$summary" | grep -o 'errors: [0-9]*' | grep -o '[0-9]*' || echo 0)
	if [ -z "$summary" ]; then
		problems+=("$(basename "$doc"): kunit.py could not parse it")
		continue
	fi
	f=$((f + c + e))
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	say "qemu[$name]: $(basename "$doc" .ktap): $p passed, $f failed, $s skipped"
	if [ "$f" -ne 0 ]; then
		grep -E 'FAILED|CRASHED|ERROR|Expected|# ' "${doc%.ktap}.parsed" | sed -n '1,30s/^/    | /p'
	fi
done
[ $ndocs -gt 0 ] || problems+=("no KTAP results in the console log")
# Each scenario of the boot reported: its st_end wrote its document
# (scenario-NAME.ktap, NAME its file's name), so one that died or exited
# early in a shared boot cannot go unnoticed beside the others. One check
# each.
for scenario in "${scenarios[@]}"; do
	doc=scenario-$(basename "$scenario" .sh)
	if [ -f "$run/$doc.ktap" ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		problems+=("$(basename "$scenario"): no $doc KTAP document (it ended early?)")
	fi
done

# Every skip, test by test; those --allow-skip does not expect fail.
unexpected_skips "$allow_skip" "$run"/*.ktap >"$run/skips.unexpected"
n=$(wc -l <"$run/skips.unexpected")
if [ "$n" -gt 0 ]; then
	problems+=("$n unexpected skip(s): a test that should run here did not")
	sed -n '1,20s/^/    skip: /p' "$run/skips.unexpected"
	failed=$((failed + n))
	skipped=$((skipped > n ? skipped - n : 0))
fi

if [ ${#problems[@]} -eq 0 ]; then
	passed=$((passed + 1))
	say "qemu[$name]: console clean"
else
	failed=$((failed + 1))
	for p in "${problems[@]}"; do say "qemu[$name]: FAIL: $p"; done
	say "qemu[$name]: console log $console; last lines:"
	tail -n 30 "$console" | sed 's/^/    | /'
fi
echo "$passed $failed $skipped" >"$run/counts"
[ "$failed" -eq 0 ]
