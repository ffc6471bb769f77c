#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make shell, typed into by a pipe: "cat version", an ls of a module of
# the user's (shell.sh --more-modules, make shell MODULES=), a start of
# remoteproc0 and its state when the example firmware is staged, and
# "exit" go into scripts/shell.sh under a timeout. Passes when the shell
# printed WANT (the version, so it ran in snaptrace's debugfs directory
# with the module loaded) on a line of its own, named the user's module and
# had it in /modules, said how to leave, said remoteproc0's firmware and
# started it with nothing written first (running), or without the
# firmware said how to get it, showed no harness marker or emulator
# noise (console-view.pl; the console log keeps the end marker), and QEMU
# exited by itself with status 0 after the guest's end marker (the guest
# powered itself off when the shell exited).
#
# Usage: shell-check.sh [--want WANT] [--name NAME] [--timeout SECONDS]
#                       [--up-to-date]
#                       [shell.sh options: --persist --kernel VMLINUZ
#                        --modules DIR]
#
# --up-to-date: make shell's own way (no --kernel), after the module was
# built for the stock 6.12 kernel (make check's build of it): shell.sh
# must say "build: up to date", not build it again.
#
# With --persist (make shell-persist), the shell must also have said that
# the persistent region is armed (the module loaded with the parameters
# the kernel's command line names), and leaving it must end the run
# although the guest may reboot (a panic's test is persist_reboot's).
#
# WANT is 0.1.0, as README.md shows; NAME is shell-check. The session goes
# to out/runs/NAME.session, "PASSED FAILED SKIPPED" (one check) to
# out/runs/NAME/counts, for scripts/check.sh.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

want=0.1.0 name=shell-check timeout=120 persist=0 uptodate=0
while [ $# -gt 0 ]; do
	case "$1" in
	--up-to-date) uptodate=1; shift; continue ;;
	--want) want=$2 ;;
	--name) name=$2 ;;
	--timeout) timeout=$2 ;;
	*) break ;;
	esac
	shift 2
done

session=$SNAPTRACE_OUT/runs/$name.session
mkdir -p "$SNAPTRACE_OUT/runs"
# A module of the user's: the guest only lists it, so any file will do.
mine=$SNAPTRACE_OUT/runs/$name.modules
rm -rf "$mine"
mkdir -p "$mine"
echo "not a module: shell-check.sh's stand-in" >"$mine/st_mine.ko"
# With the example firmware staged, shell.sh passes it to the guest, whose
# remoteproc0 must start as it is.
fw=0 typed='cat version\nls /modules/st_mine.ko\n'
if [ -f "$SNAPTRACE_OUT/firmware/snaptrace/example64.elf" ]; then
	fw=1
	typed="${typed}echo start > remoteproc/remoteproc0/state\ncat remoteproc/remoteproc0/state\n"
fi
s=$(date +%s) rc=0
# shellcheck disable=SC2059 # the typed lines are the format
printf "${typed}exit\n" |
	timeout -k 10 "$timeout" "$SNAPTRACE_TOP/scripts/shell.sh" --name "$name" \
		--more-modules "$mine" "$@" >"$session" 2>&1 || rc=$?
say "shell-check[$name]: make shell's script exited $rc after $(($(date +%s) - s))s"

case " $* " in *" --persist "*) persist=1 ;; esac
problems=()
[ $persist = 0 ] || grep -E '^ +armed: 0x30000000, 1048576 bytes, boot id [0-9a-f]{16}' \
	"$session" >/dev/null ||
	problems+=("the shell did not say the persistent region is armed")
[ $rc -eq 0 ] ||
	problems+=("exit status $rc, not 0 (124: timed out; else QEMU's, or the guest never finished)")
# grep without -q: it reads to the end, so tr is never killed by SIGPIPE.
tr -d '\r' <"$session" | grep -x -- "$want" >/dev/null ||
	problems+=("no line '$want' (cat version in the guest's shell)")
grep 'exit or Ctrl-D' "$session" >/dev/null ||
	problems+=("the shell did not say how to leave it")
if [ $fw = 1 ]; then
	grep -F "remote: remoteproc0's firmware is snaptrace/example64.elf: echo start > remoteproc/remoteproc0/state" \
		"$session" >/dev/null ||
		problems+=("the shell did not say remoteproc0's firmware and how to start it")
	tr -d '\r' <"$session" | grep -x running >/dev/null ||
		problems+=("remoteproc0 did not start as the shell left it (no line 'running')")
else
	grep -F 'remote: no /lib/firmware/snaptrace/example64.elf here: run make firmware on the host' \
		"$session" >/dev/null ||
		problems+=("the shell did not say how to get remoteproc0's firmware")
fi
grep -F 'modules: yours in /modules: st_mine.ko' "$session" >/dev/null ||
	problems+=("the shell did not name the user's module (--more-modules)")
tr -d '\r' <"$session" | grep -x -- /modules/st_mine.ko >/dev/null ||
	problems+=("no /modules/st_mine.ko in the guest (--more-modules)")
if noise=$(grep -a -n -E '@@SNAPTRACE-|SeaBIOS|iPXE|terminating on signal' "$session"); then
	problems+=("harness markers or emulator noise on the terminal: ${noise//$'\n'/; }")
fi
grep '@@SNAPTRACE-DONE@@' "$SNAPTRACE_OUT/runs/$name/console.log" >/dev/null ||
	problems+=("no end marker in the console log (the judge's copy)")
if [ $uptodate = 1 ]; then
	grep -E 'build: up to date' "$session" >/dev/null ||
		problems+=("make shell built the module again (no 'build: up to date')")
fi

mkdir -p "$SNAPTRACE_OUT/runs/$name"
if [ ${#problems[@]} -eq 0 ]; then
	say "shell-check[$name]: ok"
	echo "1 0 0" >"$SNAPTRACE_OUT/runs/$name/counts"
	exit 0
fi
for p in "${problems[@]}"; do say "shell-check[$name]: FAIL: $p"; done
say "shell-check[$name]: session $session; last lines:"
tail -n 20 "$session" | sed 's/^/    | /' >&2
echo "0 1 0" >"$SNAPTRACE_OUT/runs/$name/counts"
exit 1
