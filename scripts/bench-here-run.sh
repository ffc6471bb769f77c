#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The run part of `make bench-here` (scripts/bench.sh --here), as root: run
# tests/scenarios/bench.sh on this machine's running kernel with the modules
# of MODDIR, and write what the QEMU console would have shown (the kernel's
# BENCH lines, then the scenario's) to RUNDIR/console.log. Exit status 0 when
# every scenario step passed.
#
# Usage: bench-here-run.sh RUNDIR MODDIR   (BENCH_* knobs from the environment)
set -uo pipefail

top=$(realpath "$(dirname "$0")/..")
dir=${1:?usage: bench-here-run.sh RUNDIR MODDIR}
mods=$(realpath "${2:?usage: bench-here-run.sh RUNDIR MODDIR}")

[ "$(id -u)" -eq 0 ] || { echo "bench-here: needs root"; exit 1; }
if grep -qs '^snaptrace ' /proc/modules; then
	echo "bench-here: snaptrace is loaded on this machine: rmmod it first"
	exit 1
fi
mountpoint -q /sys/kernel/debug || mount -t debugfs debugfs /sys/kernel/debug
rm -rf "$dir"
mkdir -p "$dir/scenario" "$dir/ktap"
cp "$top/tests/scenarios/lib.sh" "$top/tests/scenarios/bench.sh" "$dir/scenario/"

# snaptrace_bench.ko prints its BENCH lines with pr_info(): follow the
# kernel log from here on, so a small log buffer cannot drop the early ones.
dmesg --follow-new >"$dir/kmsg.log" &
follower=$!
trap 'kill $follower 2>/dev/null' EXIT
sleep 1
tag="snaptrace-bench-here-$$-$(date +%s)"
echo "$tag" >/dev/kmsg
(cd "$dir/scenario" && ST_MOD=$mods ST_KTAP=$dir/ktap sh ./bench.sh) \
	>"$dir/scenario.log" 2>&1
rc=$?
sleep 1
kill $follower
wait $follower 2>/dev/null
{
	sed -n "/$tag/,\$p" "$dir/kmsg.log"
	cat "$dir/scenario.log"
} >"$dir/console.log"
cat "$dir/ktap"/*.ktap
# Leave the tree writable by whoever ran make.
[ -n "${SUDO_UID:-}" ] && chown -R "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$dir"
[ $rc -eq 0 ] && ! grep -q '^not ok' "$dir/ktap"/*.ktap
