#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Static checks of the module's C, with the tools of Debian's
# linux-source-6.12 (unpacked in the cache as tests/qemu/kernel-kunit.sh does):
#
#   checkpatch  checkpatch.pl --strict on src/, include/, tests/ and
#               examples/ (not fw/, which is the remote's user-space C): no
#               error, warning or check
#   sparse      the modules built with C=2 against the Debian 6.12 headers
#               (the crash test module too): no sparse warning or error in
#               our files
#   kernel-doc  kernel-doc -Wall on src/ and include/snaptrace/: no output
#   all         the three (the default); goes on past a failure
#   clang-format  advisory only, never fails and not part of all: how much
#               of our code the kernel's .clang-format would change
#
# One stage line per check, its log in out/logs/static-<check>.log. Exit
# status 1 when any check found something.
#
# Usage: static-checks.sh [checkpatch|sparse|kernel-doc|all|clang-format]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

what=${1:-all}
top=$SNAPTRACE_TOP
logs=$SNAPTRACE_OUT/logs

ksrc() {
	kernel_source
}

# c_files DIR SUBDIR...: the C files under DIR/SUBDIR..., relative to DIR, so
# findings read src/ring.c:12. tests/fuzz and tests/explore are user-space
# C (the libFuzzer target, the interleaving explorer, and their shims of
# kernel headers), not kernel code.
c_files() {
	local dir=$1
	shift
	(cd "$dir" && find "$@" \( -path tests/fuzz -o -path tests/explore \) -prune -o -name '*.[ch]' -type f -print | sort)
}

checkpatch() {
	local files out rc=0
	cd "$top" || return
	files=$(c_files "$top" src include compat-include tests examples)
	echo "checkpatch --strict: $(echo "$files" | wc -l) files"
	# --terse prints nothing for a clean file.
	out=$(echo "$files" |
		xargs perl "$KSRC/scripts/checkpatch.pl" --no-tree --strict --terse -f 2>&1) ||
		rc=$?
	[ -z "$out" ] && [ $rc -eq 0 ] && return 0
	printf '%s\n' "$out"
	return 1
}

sparse_check() {
	local kver kdir copy=$SNAPTRACE_OUT/build/sparse rc=0
	command -v sparse >/dev/null || { echo "sparse is not installed: run 'make deps'"; return 1; }
	kver=$(stock_kver linux-headers-6.12-amd64)
	[ -n "$kver" ] || { echo "cannot resolve linux-headers-6.12-amd64"; return 1; }
	kdir=/usr/src/linux-headers-$kver
	rm -rf "$copy"
	mkdir -p "$copy"
	cp -r "$top"/{Kbuild,Kconfig,src,include,compat-include,tests} "$copy/" || return
	echo "sparse $(sparse --version) on $kver (C=2)"
	# -k: a file sparse fails on must not hide the findings in the others.
	make -k -C "$kdir" M="$copy" C=2 CONFIG_SNAPTRACE_CRASH_TEST=m \
		-j"$(nproc)" modules 2>&1 |
		tee "$copy/build.log" || rc=$?
	grep -F "$copy/" "$copy/build.log" | grep -E ': (warning|error):' |
		awk '!seen[$0]++' >"$copy/findings" || true
	if [ -s "$copy/findings" ]; then
		echo "sparse findings in our files:"
		sed "s|^$copy/||" "$copy/findings"
		return 1
	fi
	[ $rc -eq 0 ] || { echo "the C=2 build failed (rc=$rc)"; return 1; }
}

kernel_doc() {
	local files out
	cd "$top" || return
	files=$(c_files "$top" src include/snaptrace compat-include)
	echo "kernel-doc -Wall: $(echo "$files" | wc -l) files"
	# kernel-doc -none exits 0 whatever it finds: judge by its output.
	out=$("$KSRC/scripts/kernel-doc" -none -Wall $files 2>&1) || true
	[ -z "$out" ] && return 0
	printf '%s\n' "$out"
	return 1
}

# Advisory: lines clang-format would change, per directory. Always succeeds.
clang_format() {
	local copy=$SNAPTRACE_OUT/build/clang-format d f n lines total
	command -v clang-format >/dev/null || { echo "clang-format not installed"; return 0; }
	rm -rf "$copy"
	mkdir -p "$copy"
	cp -r "$top"/{src,include,tests} "$copy/" || return 0
	cp "$KSRC/.clang-format" "$copy/" || return 0
	cd "$copy" || return 0
	for d in src include tests; do
		lines=0 total=0
		for f in $(c_files "$copy" "$d"); do
			n=$(clang-format "$f" | diff "$f" - | grep -c '^<' || true)
			[ "$n" -eq 0 ] || echo "$f: $n lines"
			lines=$((lines + n))
			total=$((total + $(wc -l <"$f")))
		done
		echo "$d: clang-format would change $lines of $total lines"
	done
}

KSRC=$(ksrc)
failed=""
run() { # run NAME FUNCTION
	stage "static: $1" "$logs/static-$1.log" "$2" || failed="$failed $1"
}
case "$what" in
checkpatch) run checkpatch checkpatch ;;
sparse) run sparse sparse_check ;;
kernel-doc) run kernel-doc kernel_doc ;;
all)
	run checkpatch checkpatch
	run sparse sparse_check
	run kernel-doc kernel_doc
	;;
clang-format)
	run clang-format clang_format
	grep 'would change' "$logs/static-clang-format.log" | sed 's/^/    /' >&2
	;;
*) die "usage: static-checks.sh [checkpatch|sparse|kernel-doc|all|clang-format]" ;;
esac
if [ -n "$failed" ]; then
	say "static: FAILED:$failed"
	exit 1
fi
