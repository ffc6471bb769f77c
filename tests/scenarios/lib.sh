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
