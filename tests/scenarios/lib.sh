# SPDX-License-Identifier: GPL-2.0
# Helpers for scenario scripts, run by busybox sh inside the QEMU guest.
# Each step prints "ok N - name" or "not ok N - name" (KTAP) to the console
# and to /tmp/ktap/scenario-<name>.ktap, which /init dumps for the host.

ST_DEBUGFS=/sys/kernel/debug
ST_DIR=$ST_DEBUGFS/snaptrace
ST_MOD=${ST_MOD:-/modules}
ST_KTAP=${ST_KTAP:-/tmp/ktap}
ST_N=0
ST_FILE=

# st_fault_arm: let failslab and fail_page_alloc count GFP_KERNEL
# allocations of any order, quietly (a stack dump per injected fault would
# read as a splat). Their probability stays as it is (0 at boot): only a
# task's fail-nth, or a scenario that raises it, injects anything.
st_fault_arm() {
	local d
	for d in failslab fail_page_alloc; do
		echo N >$ST_DEBUGFS/$d/ignore-gfp-wait && echo 0 >$ST_DEBUGFS/$d/verbose ||
			return 1
	done
	echo 0 >$ST_DEBUGFS/fail_page_alloc/min-order
}

# st_begin NAME: start the scenario's KTAP document.
st_begin() {
	ST_FILE=$ST_KTAP/scenario-$1.body
	: >"$ST_FILE"
	ST_NAME=$1
	echo "# scenario $1"
}

# st_result OK NAME [DETAIL-FILE]: record one step.
st_result() {
	ST_N=$((ST_N + 1))
	if [ "$1" = 0 ]; then
		echo "ok $ST_N - $2" | tee -a "$ST_FILE"
	else
		# KTAP: diagnostics come before the result line they explain.
		[ -n "$3" ] && sed 's/^/# /' "$3" | tee -a "$ST_FILE"
		echo "not ok $ST_N - $2" | tee -a "$ST_FILE"
	fi
}

# st_check NAME CMD...: run CMD, a step that passes when CMD succeeds.
st_check() {
	local name=$1 rc
	shift
	"$@" >/tmp/st_out 2>&1
	rc=$?
	st_result $rc "$name" /tmp/st_out
}

# st_check_fails NAME CMD...: a step that passes when CMD fails.
st_check_fails() {
	local name=$1 rc
	shift
	"$@" >/tmp/st_out 2>&1
	rc=$?
	[ $rc -ne 0 ]
	st_result $? "$name (expected failure, rc=$rc)" /tmp/st_out
}

# st_expect_eq NAME WANT GOT: a step comparing two strings.
st_expect_eq() {
	if [ "$2" = "$3" ]; then
		st_result 0 "$1"
	else
		printf 'want: %s\ngot:  %s\n' "$2" "$3" >/tmp/st_out
		st_result 1 "$1" /tmp/st_out
	fi
}

# st_skip NAME REASON: a step that cannot run here.
st_skip() {
	ST_N=$((ST_N + 1))
	echo "ok $ST_N - $1 # SKIP $2" | tee -a "$ST_FILE"
}

# st_end: close the document with its plan.
st_end() {
	{
		echo "KTAP version 1"
		echo "1..$ST_N"
		cat "$ST_FILE"
	} >"$ST_KTAP/scenario-$ST_NAME.ktap"
	rm -f "$ST_FILE"
}

# st_kunit_collect: save every KUnit suite's results (they vanish when the
# test module is unloaded).
st_kunit_collect() {
	local d s
	for d in "$ST_DEBUGFS"/kunit/*/; do
		[ -f "$d/results" ] || continue
		s=$(basename "$d")
		cat "$d/results" >"/tmp/ktap/kunit-$s.ktap"
	done
}

# st_reboot_expected KIND: for qemu-run.sh --reboots, where the scenario
# runs again on every boot: end the current stage's document (as st_end
# does), print it and every other document of this boot to the console
# between the markers /init uses (the tmpfs does not survive the reset),
# then announce the reset the scenario causes next, KIND panic, oops (the
# scenario sets panic_on_oops) or reboot, with @@SNAPTRACE-EXPECT-KIND@@.
# The host allows, after that marker, the report of that panic or oops
# and nothing else. The documents printed here are removed, so that /init
# does not print them twice if the reset never comes (which fails too).
# Returns once the console has sent it all: a panic right after would
# drop what is still queued for the serial port.
st_reboot_expected() {
	local marker f level
	case $1 in
	panic) marker=PANIC ;;
	oops) marker=OOPS ;;
	reboot) marker=REBOOT ;;
	*)
		echo "st_reboot_expected: KIND is panic, oops or reboot, not '$1'" >&2
		return 1 ;;
	esac
	st_end
	# Quiet the console, as /init does, so no kernel line lands inside.
	level=$(cut -f 1 /proc/sys/kernel/printk)
	echo 1 >/proc/sys/kernel/printk
	for f in "$ST_KTAP"/*.ktap; do
		[ -f "$f" ] || continue
		echo "@@SNAPTRACE-KTAP-BEGIN $(basename "$f" .ktap)@@"
		cat "$f"
		echo "@@SNAPTRACE-KTAP-END@@"
		rm -f "$f"
	done
	echo "@@SNAPTRACE-EXPECT-$marker@@"
	# Setting the console's modes to what they are, with TCSADRAIN (what
	# stty does), waits until the serial port has sent what is queued.
	stty -F /dev/console "$(stty -F /dev/console -g)"
	echo "$level" >/proc/sys/kernel/printk
}
