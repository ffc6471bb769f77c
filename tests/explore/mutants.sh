#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Remove each guard of the ring in turn (tests/explore/mutants.txt) and
# run the explorer on the result with make check's budget: every mutant
# must be found. Prints one line a mutant (what failed first, or
# "NOT FOUND"), a count, and exits 1 if a guard was found by nothing, or
# a mutant did not apply (the code moved: mend mutants.txt).
#
# Usage: tests/explore/mutants.sh [NAME...]   (default: all)
# EXPLORE_RANDOM (20000) random runs after the systematic ones.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

top=$SNAPTRACE_TOP
dir=$SNAPTRACE_OUT/explore/mutants
mkdir -p "$dir"
found=0 missed=0 broken=0
while read -r name file perl; do
	case $name in '' | '#'*) continue ;; esac
	if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then
		continue
	fi
	m=$dir/$name
	rm -rf "$m"
	cp -r "$top/src" "$m"
	if ! N=0 perl -0777 -i -pe "\$n = (${perl}g); END { exit(\$n == 1 ? 0 : 3) }" \
		"$m/$file" 2>"$m.apply"; then
		echo "mutant $name: does not apply once to src/$file"
		broken=$((broken + 1))
		continue
	fi
	if ! EXPLORE_SRC=$m SNAPTRACE_OUT=$dir/out-$name \
		"$top/tests/explore/run.sh" --build >"$m.log" 2>&1; then
		echo "mutant $name: does not build ($m.log)"
		broken=$((broken + 1))
		continue
	fi
	bin=$dir/out-$name/explore/explore
	how=
	if ! "$bin" --systematic --first --reports 1 >"$m.sys" 2>&1; then
		how="systematic $(sed -n 's/^FAIL \([^ ]*\).*/\1/p' "$m.sys" | head -n 1): $(grep -A1 '^FAIL' "$m.sys" | sed -n 2p)"
	elif ! "$bin" --random "${EXPLORE_RANDOM:-20000}" --seed 1 --first --reports 1 >"$m.rnd" 2>&1; then
		how="random: $(grep -A1 '^FAIL' "$m.rnd" | sed -n 2p)"
	fi
	if [ -n "$how" ]; then
		echo "mutant $name: found by $how"
		found=$((found + 1))
	else
		echo "mutant $name: NOT FOUND"
		missed=$((missed + 1))
	fi
done <"$top/tests/explore/mutants.txt"
echo "mutants: $found found, $missed not found, $broken not applied"
[ "$missed" = 0 ] && [ "$broken" = 0 ]
