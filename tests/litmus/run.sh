#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The ring's litmus tests (tests/litmus/*.litmus) under the Linux-kernel
# memory model, with herd7 (scripts/herd.sh), each against the result
# expected.txt gives it.
#
# A file's header may name twins, one a line:
#
#    * Twin NAME: SED-SCRIPT
#
# the same test with SED-SCRIPT applied to its code (not to its comment
# lines), run as FILE-NAME: the test with one barrier removed (or, where
# the file holds a fixed form, the code as it is today). A twin that
# SED-SCRIPT leaves unchanged is an error.
#
# Usage: run.sh [-o OUTDIR] [NAME...]   NAME: a file's name without
#        .litmus (default: all, and then expected.txt must name exactly the
#        tests and twins there are). OUTDIR (default $SNAPTRACE_OUT/litmus)
#        gets in/ (what herd7 ran), herd/NAME.out (its output) and results
#        (NAME EXPECTED GOT PASS|FAIL, one a line).
# Prints one line per test, a count, and exits 1 on any mismatch.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../scripts/lib.sh"

out=$SNAPTRACE_OUT/litmus
if [ "${1:-}" = -o ]; then
	out=$(realpath -m "${2:?usage: run.sh [-o OUTDIR] [NAME...]}")
	shift 2
fi
all=0
if [ $# -eq 0 ]; then
	all=1
	for f in "$here"/*.litmus; do
		f=${f##*/}
		set -- "$@" "${f%.litmus}"
	done
fi
rm -rf "$out"
mkdir -p "$out/in" "$out/herd"

# The tests and their twins, as herd7 will run them.
names=()
for n in "$@"; do
	f=$here/$n.litmus
	[ -f "$f" ] || die "no $f"
	cp "$f" "$out/in/$n.litmus"
	names+=("$n")
	while IFS= read -r line; do
		tw=${line%%:*}
		rule=${line#*: }
		sed -e '/^ \*/b' -e '/^(\*/b' -e "$rule" -e "1s/^C $n\$/C $n-$tw/" \
			"$f" >"$out/in/$n-$tw.litmus"
		if [ "$(sed 1d "$f")" = "$(sed 1d "$out/in/$n-$tw.litmus")" ]; then
			die "$n.litmus: twin $tw: '$rule' changes nothing"
		fi
		names+=("$n-$tw")
	done < <(sed -n 's/^ \* Twin \([A-Za-z0-9_]*: .*\)$/\1/p' "$f")
done

# What each should say: expected.txt, "NAME Never|Sometimes|Always".
declare -A want=()
while read -r n w _; do
	case $n in '' | '#'*) continue ;; esac
	want[$n]=$w
done <"$here/expected.txt"
if [ "$all" = 1 ]; then
	for n in "${!want[@]}"; do
		[ -f "$out/in/$n.litmus" ] || die "expected.txt names $n, which no litmus file makes"
	done
fi

files=()
for n in "${names[@]}"; do
	files+=("$out/in/$n.litmus")
done
"$here/../../scripts/herd.sh" -o "$out/herd" "${files[@]}" ||
	die "herd7 did not run"

passed=0 failed=0
for n in "${names[@]}"; do
	got=$(sed -n "s/^Observation $n \([A-Za-z]*\) .*/\1/p" "$out/herd/$n.out")
	got=${got:-ERROR}
	w=${want[$n]:-MISSING}
	if [ "$got" = "$w" ]; then
		res=PASS passed=$((passed + 1))
	else
		res=FAIL failed=$((failed + 1))
		[ "$got" != ERROR ] || sed 's/^/    | /' "$out/herd/$n.out" >&2
	fi
	printf '%-32s expected %-9s got %-9s %s\n' "$n" "$w" "$got" "$res"
	echo "$n $w $got $res" >>"$out/results"
done
echo "litmus: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
