#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Remove each guard of the ring in turn (tests/explore/mutants.txt) and
# run the explorer on the result with make check's budget: every mutant
# must be found. Prints one line a mutant (what failed first, or
# "NOT FOUND"), a count, and exits 1 if a guard was found by nothing, or
# a mutant did not apply (the code moved: mend mutants.txt). A line whose
# name begins with "~" is a check shown redundant (the reason above it):
# it must not be found; a line "A+B" removes the checks of lines A and B
# together (two that cover each other: neither alone is found, both must
# be).
#
# Usage: tests/explore/mutants.sh [NAME...]   (default: all)
# EXPLORE_RANDOM (20000) random runs after the systematic ones.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

top=$SNAPTRACE_TOP
dir=$SNAPTRACE_OUT/explore/mutants
list=$top/tests/explore/mutants.txt
mkdir -p "$dir"
found=0 missed=0 broken=0 redundant=0
# line NAME: mutants.txt's line of NAME (its "~" taken off), "FILE PERL".
line() {
	awk -v n="$1" '{ m = $1; sub(/^~/, "", m) } m == n { $1 = ""; sub(/^ +/, ""); print; exit }' "$list"
}
# apply NAME DIR: NAME's substitution (each of A+B's) once in DIR's copy.
apply() {
	local part file perl
	for part in ${1//+/ }; do
		read -r file perl <<<"$(line "$part")"
		[ -n "$file" ] || return 3
		N=0 perl -0777 -i -pe "\$n = (${perl}g); END { exit(\$n == 1 ? 0 : 3) }" \
			"$2/$file" || return 3
	done
}
while read -r name _; do
	case $name in '' | '#'*) continue ;; esac
	expect=found
	case $name in "~"*) name=${name#\~} expect=redundant ;; esac
	if [ $# -gt 0 ] && ! printf '%s\n' "$@" | grep -qx "$name"; then
		continue
	fi
	m=$dir/$name
	rm -rf "$m"
	cp -r "${EXPLORE_SRC:-$top/src}" "$m"
	if ! apply "$name" "$m" 2>"$m.apply"; then
		echo "mutant $name: does not apply once to src/"
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
	if [ -n "$how" ] && [ "$expect" = found ]; then
		echo "mutant $name: found by $how"
		found=$((found + 1))
	elif [ -n "$how" ]; then
		echo "mutant ~$name: found by $how: a guard after all, take its ~ off (and its reason)"
		broken=$((broken + 1))
	elif [ "$expect" = redundant ]; then
		echo "mutant ~$name: not found, as mutants.txt says why"
		redundant=$((redundant + 1))
	else
		echo "mutant $name: NOT FOUND"
		missed=$((missed + 1))
	fi
done <"$list"
echo "mutants: $found found, $missed not found, $redundant redundant as said, $broken not applied or mislabelled"
[ "$missed" = 0 ] && [ "$broken" = 0 ]
