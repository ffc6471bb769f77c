# SPDX-License-Identifier: GPL-2.0
# How the runner (qemu-run.sh) judges a console and its KTAP documents:
# what is a splat, what --faults drops, which skips fail a run, whether
# /init ran. Sourced after scripts/lib.sh, not executed; runner-selftest.sh
# checks each of these on made-up consoles.

# SPLAT_RE: what fails a boot when it shows on the console (lockdep reports
# begin with "WARNING:" or "BUG:").
SPLAT_RE='BUG:|WARNING:|KASAN:|UBSAN:|sleeping function called from invalid context|Oops|Kernel panic|general protection fault|soft lockup|hard LOCKUP|rcu_.*detected stall|INFO: task .* blocked|unreferenced object|Call Trace:'

# drop_fault_reports <CONSOLE >OUT: the console without what an injected
# allocation fault prints, vmalloc's warn_alloc() report (a failed page or
# slab allocation returns before any warning): each up to the end of its
# stack, at most 100 lines, and never past the start of another report.
# runner-selftest.sh checks each of those limits.
drop_fault_reports() {
	awk -v splat="$SPLAT_RE" '
	     /vmalloc error: / { skip = 1; n = 0; next }
	     skip && /<\/TASK>/ { skip = 0; next }
	     skip && ++n > 100 { skip = 0 }
	     skip && $0 ~ splat && !/Call Trace:/ { skip = 0 }
	     !skip { print }'
}

# unexpected_skips ALLOW FILE...: the "# SKIP" lines of the KTAP documents
# FILE (a KUnit case's, a parameter's, a suite's, a scenario step's) that
# the extended regular expression ALLOW does not match; "" allows none.
unexpected_skips() {
	local allow=$1 f
	shift
	for f; do
		[ ! -f "$f" ] || cat "$f"
	done | grep -E '^[[:space:]]*ok [0-9]+ .*# SKIP' |
		sed 's/^[[:space:]]*//' |
		if [ -n "$allow" ]; then grep -Ev -- "$allow"; else cat; fi || true
}

# init_started CONSOLE: did the guest's /init run? Its boot marker, or any
# later sign of it: an asynchronous kernel message printed at the same
# moment can cut "@@SNAPTRACE-BOOTED ...@@" in two (seen on 7.3), and a
# scenario's own start line, its exit marker or the results prove it too.
INIT_RE='@@SNAPTRACE-BOOTED|BOOTED [^ ]+ cpus=[0-9]+@@|^# scenario [a-z]|@@SNAPTRACE-(SCENARIO-EXIT|KTAP-BEGIN|DONE)'
init_started() {
	grep -Eq "$INIT_RE" "$1"
}

# split_at_init CONSOLE BOOT FROM: CONSOLE cut at the first sign of /init
# (init_started's): the kernel's own boot into BOOT, the rest into FROM.
split_at_init() {
	: >"$2"
	: >"$3"
	awk -v re="$INIT_RE" -v boot="$2" -v from="$3" \
		'!on && $0 ~ re { on = 1 } { print > (on ? from : boot) }' "$1"
}

# --- qemu-run.sh --reboots ---------------------------------------------------
# A guest that may reset: its console holds one boot after another.

# BOOT_RE: the first line a kernel prints (printk.time=1 puts its
# timestamp before it; cat /proc/version has none).
BOOT_RE='\] Linux version [0-9]'
# EXPECT_RE: lib.sh's st_reboot_expected announces the reset it is about
# to cause: panic, oops (that panic_on_oops turns into a panic) or reboot.
EXPECT_RE='@@SNAPTRACE-EXPECT-[A-Z]+@@'

# split_boots CONSOLE DIR: CONSOLE cut at each kernel start into
# DIR/seg-1.log, DIR/seg-2.log, ... (what comes before the first kernel
# start, firmware output, goes with the first); prints how many.
split_boots() {
	: >"$2/seg-1.log"
	awk -v dir="$2" -v re="$BOOT_RE" '
		BEGIN { n = 1 }
		$0 ~ re { if (started) n++; started = 1 }
		{ print > (dir "/seg-" n ".log") }
		END { print n }' "$1"
}

# count_boots CONSOLE: how many boots count towards --reboots: all the
# kernel starts, less those that died before /init but the current one
# (nothing of ours loaded; the runner boots once more after such a death
# without --reboots too: under TCG the stock kernels have been seen to
# oops in their own boot, an int3 of live text patching, once in tens of
# boots, and the next boot goes on with the same stage).
count_boots() {
	awk -v re="$BOOT_RE" -v init="$INIT_RE" '
		$0 ~ init { ran[n] = 1 }
		$0 ~ re { n++ }
		END { for (k = 1; k < n; k++) if (!ran[k]) d++; print n - d }' "$1"
}

# last_boot_before_init CONSOLE: did the console's last kernel stop before
# /init ran (a reset's kernel hung or died in its own boot: nothing of ours
# was loaded in that boot)? False for a console with no kernel in it.
last_boot_before_init() {
	awk -v re="$BOOT_RE" -v init="$INIT_RE" '
		$0 ~ re { n++; ran = 0 }
		$0 ~ init { ran = 1 }
		END { exit !(n > 0 && !ran) }' "$1"
}

# drop_expected_reports KIND <AFTER >OUT: what a boot printed after its
# @@SNAPTRACE-EXPECT-KIND@@ marker, without what the announced reset
# prints itself, so that any other report still shows as a splat:
#  - panic: the one "Kernel panic - not syncing" report up to the end of
#    its stack ("</TASK>"), and its "---[ end Kernel panic" line. The
#    lines around it ("Shutting down cpus with NMI", "Kernel Offset",
#    "Rebooting in") are no splats;
#  - oops: also the one oops report before it, from its first line
#    ("BUG: kernel NULL pointer dereference", or "Oops: general protection
#    fault" where KASAN's shadow check faults first) up to its "---[ end
#    trace" line;
#  - reboot: nothing.
# A dropped report ends early, and what ends it is kept, at a line of
# another report (any SPLAT_RE line but the report's own: one "Call
# Trace:"; for the oops, one "Oops" line and KASAN's one line decoding a
# NULL pointer's shadow address). runner-selftest.sh checks each of these.
drop_expected_reports() {
	awk -v kind="$1" -v splat="$SPLAT_RE" '
	     function start(what) { skip = what; traces = 0 }
	     kind == "oops" && !oopsed && /BUG: kernel NULL pointer dereference|Oops: / {
		     oopsed = 1; start("oops"); if (/Oops/) oopses++; next }
	     (kind == "panic" || kind == "oops") && !panicked && /Kernel panic - not syncing/ {
		     panicked = 1; start("panic"); next }
	     panicked && !ended && /---\[ end Kernel panic - not syncing/ { ended = 1; next }
	     skip && /Call Trace:/ { if (++traces == 1) next; skip = "" }
	     skip == "oops" && /Oops/ { if (++oopses == 1) next; skip = "" }
	     skip == "oops" && /KASAN: null-ptr-deref in range / { if (++kasans == 1) next; skip = "" }
	     skip == "oops" && /---\[ end trace / { skip = ""; next }
	     skip == "panic" && /<\/TASK>/ { skip = ""; next }
	     skip && $0 ~ splat { skip = "" }
	     !skip { print }'
}

# judge_boots CONSOLE DIR MAX: the console of a run that may reset MAX
# times, boot by boot. Writes DIR/judged.log, what the splat check is to
# see: each boot from /init on, up to its @@SNAPTRACE-EXPECT-KIND@@
# marker, then what follows the marker less drop_expected_reports KIND.
# Prints the problems found, one a line: a boot that reset without
# announcing it ("unexpected reboot"), one that announced a panic or an
# oops and reset without one, one that announced a reset and went on to
# the end, more resets than MAX. Writes to DIR/notes what it leaves out:
# a first boot that died before /init, the kernel's own boot before /init
# (as without --reboots), and any boot after the one that printed
# @@SNAPTRACE-DONE@@ (/init's "reboot -f" before the host stopped QEMU).
judge_boots() {
	local console=$1 dir=$2 max=$3 n last k b kind resets segs=()
	n=$(split_boots "$console" "$dir")
	: >"$dir/judged.log"
	: >"$dir/notes"
	last=$n
	for ((k = 1; k <= n; k++)); do
		if grep -q '@@SNAPTRACE-DONE@@' "$dir/seg-$k.log"; then
			last=$k
			break
		fi
	done
	if [ "$last" -lt "$n" ]; then
		for ((k = last + 1; k <= n; k++)); do
			cat "$dir/seg-$k.log"
		done >"$dir/after-done.log"
		echo "$((n - last)) boot(s) after @@SNAPTRACE-DONE@@ (/init's reboot -f): not judged" >>"$dir/notes"
	fi
	# The boots judged: those that reached /init, and the last one.
	for ((k = 1; k <= last; k++)); do
		if [ "$k" -lt "$last" ] && ! init_started "$dir/seg-$k.log"; then
			mv "$dir/seg-$k.log" "$dir/before-init-$k.log"
			echo "kernel start $k died before /init (nothing of ours loaded; $dir/before-init-$k.log): not counted" >>"$dir/notes"
			continue
		fi
		segs+=("$k")
	done
	resets=$((${#segs[@]} - 1))
	[ "$resets" -le "$max" ] ||
		echo "rebooted more than $max times ($resets)"
	for ((b = 1; b <= ${#segs[@]}; b++)); do
		k=${segs[b - 1]}
		split_at_init "$dir/seg-$k.log" "$dir/boot-$b.kernel.log" "$dir/boot-$b.log"
		if grep -Eq "$SPLAT_RE" "$dir/boot-$b.kernel.log"; then
			echo "boot $b: a kernel report before /init (nothing of ours loaded), not judged:"
			grep -En "$SPLAT_RE" "$dir/boot-$b.kernel.log" | sed -n "1,5s/^/    boot $b: /p"
		fi >>"$dir/notes"
		kind=$(grep -Eo -m 1 "$EXPECT_RE" "$dir/boot-$b.log" |
			sed 's/@@SNAPTRACE-EXPECT-//; s/@@//' || true)
		kind=${kind,,}
		if [ -z "$kind" ]; then
			cat "$dir/boot-$b.log" >>"$dir/judged.log"
			[ "$k" -eq "$last" ] ||
				echo "boot $b: unexpected reboot (no @@SNAPTRACE-EXPECT-...@@ before it)"
			continue
		fi
		awk -v re="$EXPECT_RE" -v before="$dir/boot-$b.before.log" \
			-v after="$dir/boot-$b.after.log" \
			'BEGIN { printf "" > before; printf "" > after }
			 !on && $0 ~ re { on = 1 } { print > (on ? after : before) }' \
			"$dir/boot-$b.log"
		cat "$dir/boot-$b.before.log" >>"$dir/judged.log"
		case $kind in
		panic | oops | reboot) ;;
		*)
			echo "boot $b: unknown @@SNAPTRACE-EXPECT-...@@ kind '$kind'"
			cat "$dir/boot-$b.after.log" >>"$dir/judged.log"
			continue ;;
		esac
		drop_expected_reports "$kind" <"$dir/boot-$b.after.log" >>"$dir/judged.log"
		if grep -q '@@SNAPTRACE-DONE@@' "$dir/boot-$b.after.log"; then
			echo "boot $b: announced a $kind, and went on to the end"
		elif [ "$k" -lt "$last" ] && [ "$kind" != reboot ] &&
			! grep -q 'Kernel panic - not syncing' "$dir/boot-$b.after.log"; then
			echo "boot $b: announced a $kind, and reset without a panic"
		elif [ "$k" -lt "$last" ] && [ "$kind" = oops ] &&
			! grep -q 'Oops' "$dir/boot-$b.after.log"; then
			echo "boot $b: announced an oops, and reset without one"
		fi
	done
}
