#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The runner's console judgement on made-up consoles: what --faults drops
# (drop_fault_reports in lib.sh) and what it must keep. One line per case;
# exit status 1 if any case fails. Run by check.sh, on the host.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

fails=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# vmalloc_report [FRAMES]: the head of a warn_alloc() report and FRAMES
# stack lines, without its closing </TASK>.
vmalloc_report() {
	local i
	echo '[ 1.000000] insmod: vmalloc error: size 8192, vm_struct allocation failed'
	echo '[ 1.000001] CPU: 0 UID: 0 PID: 9 Comm: insmod Tainted: G O'
	echo '[ 1.000002] Call Trace:'
	echo '[ 1.000003]  <TASK>'
	for ((i = 0; i < ${1:-20}; i++)); do
		echo "[ 1.000004]  frame$i+0x1/0x2"
	done
}

# case_splat NAME WANT: WANT is "clean" or "splat", for the console on stdin.
case_splat() {
	local name=$1 want=$2 got=clean
	drop_fault_reports >"$tmp/out"
	grep -Eq "$SPLAT_RE" "$tmp/out" && got=splat
	if [ "$got" = "$want" ]; then
		echo "ok - $name"
	else
		echo "not ok - $name: want $want, got $got"
		sed 's/^/    | /' "$tmp/out" | tail -n 5
		fails=$((fails + 1))
	fi
}

{ vmalloc_report; echo '[ 1.1]  </TASK>'; echo '[ 1.2] Mem-Info:'; } |
	case_splat "a vmalloc report is dropped whole" clean
{ vmalloc_report 5; echo '[ 1.1] WARNING: CPU: 1 PID: 3 at foo.c:1 bar'; echo '[ 1.2]  </TASK>'; } |
	case_splat "a splat inside a vmalloc report's stack is kept" splat
{ vmalloc_report 150; echo '[ 2.0] Call Trace:'; } |
	case_splat "a report with no end is dropped for 100 lines only" splat
{ echo '[ 1.0] insmod: page allocation failure: order:0'; echo '[ 1.1] Call Trace:'; } |
	case_splat "a page allocation failure is not dropped" splat
{ vmalloc_report; echo '[ 1.1]  </TASK>'; echo '[ 1.2] Call Trace:'; } |
	case_splat "a stack after the report's end is kept" splat
[ $fails -eq 0 ]
