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
#               our files. "sparse KDIR": against a test kernel's tree
#               instead (make check: the arm64 and ARMv7-A ones, checked
#               as those architectures, the module and the crash test
#               module, not the KUnit one; log static-sparse-<tree>.log)
#   kernel-doc  kernel-doc -Wall on src/ and include/snaptrace/: no output
#   docs        the pages against the tree: Documentation/index.rst's map
#               of src/ names every src/*.c and src/*.h and nothing else,
#               every Documentation/*.rst that README.md or index.rst
#               names exists, README.md is at most 250 lines (needs no
#               kernel source)
#   all         the four (the default); goes on past a failure
#   clang-format  advisory only, never fails and not part of all: how much
#               of our code the kernel's .clang-format would change
#
# One stage line per check, its log in out/logs/static-<check>.log. Exit
# status 1 when any check found something.
#
# Usage: static-checks.sh [checkpatch|sparse [KDIR]|kernel-doc|docs|all|clang-format]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

what=${1:-all}
sparse_kdir=
[ "$what" != sparse ] || sparse_kdir=${2:-}
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
	local kver kdir copy=$SNAPTRACE_OUT/build/sparse rc=0 args=(CONFIG_SNAPTRACE_CRASH_TEST=m)
	command -v sparse >/dev/null || { echo "sparse is not installed: run 'make deps'"; return 1; }
	if [ -n "$sparse_kdir" ]; then
		# A test kernel's tree (tests/qemu/kernel-kunit.sh): cross-built
		# for ARM as the tree was, and checked as that architecture.
		# The module and the crash test module, as on x86: the KUnit
		# module's 35 files were two thirds of the check's time there,
		# and are test code the W=1 builds already compile as that
		# architecture.
		kdir=$sparse_kdir kver=$(basename "$kdir") copy=$copy-$kver
		args=(CONFIG_SNAPTRACE_CRASH_TEST=m CONFIG_SNAPTRACE_KUNIT_TEST=n)
		if grep -q '^CONFIG_ARM64=y' "$kdir/.config"; then
			args+=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-)
		elif grep -q '^CONFIG_ARM=y' "$kdir/.config"; then
			args+=(ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf-)
		fi
	else
		kver=$(stock_kver linux-headers-6.12-amd64)
		[ -n "$kver" ] || { echo "cannot resolve linux-headers-6.12-amd64"; return 1; }
		kdir=/usr/src/linux-headers-$kver
	fi
	rm -rf "$copy"
	mkdir -p "$copy"
	cp -r "$top"/{Kbuild,Kconfig,src,include,compat-include,tests} "$copy/" || return
	echo "sparse $(sparse --version) on $kver (C=2)"
	# -k: a file sparse fails on must not hide the findings in the others.
	make -k -C "$kdir" M="$copy" C=2 "${args[@]}" \
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

# The docs against the tree. The map is the list-table of "The map of
# src/" in Documentation/index.rst, a row's first cell ``FILE``.
docs() {
	local index=Documentation/index.rst map files f bad=0 n
	cd "$top" || return
	map=$(awk '
		{ line[NR] = $0 }
		END {
			for (i = 1; i < NR; i++) {
				if (line[i] ~ /[^ ]/ && line[i + 1] ~ /^(=+|-+)$/ &&
				    length(line[i + 1]) >= length(line[i]))
					f = line[i] == "The map of src/"
				if (f && line[i] ~ /^   \* - ``[^`]+``$/) {
					sub(/^   \* - ``/, "", line[i])
					sub(/``$/, "", line[i])
					print line[i]
				}
			}
		}' "$index" | sort)
	[ -n "$map" ] || { echo "$index: no \"The map of src/\" table"; return 1; }
	files=$(find src -maxdepth 1 -type f -name '*.[ch]' -printf '%f\n' | sort)
	echo "map of src/: $(echo "$map" | wc -l) rows, $(echo "$files" | wc -l) files"
	for f in $(comm -23 <(echo "$files") <(echo "$map")); do
		echo "src/$f: not in $index's map of src/"
		bad=1
	done
	for f in $(comm -13 <(echo "$files") <(echo "$map")); do
		echo "$index: the map names $f, which src/ does not have"
		bad=1
	done
	for f in $(echo "$map" | uniq -d); do
		echo "$index: the map names $f twice"
		bad=1
	done
	for f in $(grep -oh 'Documentation/[A-Za-z0-9_-]*\.rst' README.md "$index" | sort -u); do
		[ -f "$f" ] || { echo "$f: named in README.md or $index, not there"; bad=1; }
	done
	n=$(wc -l <README.md)
	echo "README.md: $n lines"
	[ "$n" -le 250 ] || { echo "README.md: $n lines, more than 250"; bad=1; }
	return $bad
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

# The docs check needs no kernel source.
[ "$what" = docs ] || KSRC=$(ksrc)
failed=""
run() { # run NAME FUNCTION
	stage "static: $1" "$logs/static-$1.log" "$2" || failed="$failed $1"
}
case "$what" in
checkpatch) run checkpatch checkpatch ;;
sparse)
	if [ -n "$sparse_kdir" ]; then
		run "sparse-$(basename "$sparse_kdir" | sed 's/-[0-9a-f]*$//')" sparse_check
	else
		run sparse sparse_check
	fi ;;
kernel-doc) run kernel-doc kernel_doc ;;
docs) run docs docs ;;
all)
	run checkpatch checkpatch
	run sparse sparse_check
	run kernel-doc kernel_doc
	run docs docs
	;;
clang-format)
	run clang-format clang_format
	grep 'would change' "$logs/static-clang-format.log" | sed 's/^/    /' >&2
	;;
*) die "usage: static-checks.sh [checkpatch|sparse [KDIR]|kernel-doc|docs|all|clang-format]" ;;
esac
if [ -n "$failed" ]; then
	say "static: FAILED:$failed"
	exit 1
fi
