#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build a KUnit test kernel from Debian's linux-source-SERIES (6.12 from
# Debian 12, newer ones fetched by lib.sh's private apt configuration) and
# the config fragment(s) in kconfig/, cached outside the clone and keyed by
# a hash of the series (6.12, 7.3), the compiler's version, the fragments
# and the recipe (the configure, check and build steps below): not by
# Debian's revision of the source package, so that a new upload of
# linux-source-SERIES (a stable update, every few weeks) does not turn
# every make check cold. A cached kernel keeps the source tree it was
# built from (its O= tree points there) and says which it was;
# SNAPTRACE_KERNEL_REFRESH=1 rebuilds from the current one.
#
# A fragment may name the architecture with a "# snaptrace-arch: ARCH"
# line (arm64, arm; x86_64 without one): the kernel is then cross-compiled
# with Debian's gcc-aarch64-linux-gnu or gcc-arm-linux-gnueabihf, its image
# is Image or zImage, and the cross compiler's version is in the key.
#
# Usage: [SNAPTRACE_KSERIES=7.3] kernel-kunit.sh [--key] [FRAGMENT...]
#        (default series 6.12, fragment kconfig/kunit.config)
# Prints the build directory (a kernel tree for `make -C ... M=`) on stdout's
# last line; with --key, only the name it has in the cache, building nothing
# (tests/qemu/kernel-cache-selftest.sh).
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

key_only=0
[ "${1:-}" != --key ] || { key_only=1; shift; }
frags=("$@")
[ ${#frags[@]} -gt 0 ] || frags=("$SNAPTRACE_TOP/kconfig/kunit.config")
series=${SNAPTRACE_KSERIES:-6.12}

name=$(basename "${frags[-1]}" .config)
# The 6.12 kernels keep their bare names; newer series say theirs.
[ "$series" = 6.12 ] || name=$name-$series
# A fragment may ask for make variables (clang.config: LLVM=1) with a
# "# snaptrace-make: VAR=VALUE" line.
read -r -a mkvars <<<"$(sed -n 's/^# snaptrace-make: //p' "${frags[@]}" | tr '\n' ' ')"
log=$SNAPTRACE_OUT/logs/kernel-$name.log
# The architecture, and how make is told to build for it.
arch=$(sed -n 's/^# snaptrace-arch: *//p' "${frags[@]}" | tail -n 1)
case "${arch:-x86_64}" in
x86_64) archvars=(ARCH=x86_64) cross= image=bzImage ;;
arm64) archvars=(ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-) cross=aarch64-linux-gnu- image=Image ;;
arm) archvars=(ARCH=arm CROSS_COMPILE=arm-linux-gnueabihf-) cross=arm-linux-gnueabihf- image=zImage ;;
*) die "kernel-kunit: no architecture '$arch' (x86_64, arm64, arm)" ;;
esac
# The compiler the kernel (and later the module) is built with, by its
# upstream version: Debian's own revision of it changes no code we test.
compiler() {
	if [ -n "$cross" ]; then
		echo "gcc $cross $("${cross}gcc" -dumpfullversion)"
		return
	fi
	case " ${mkvars[*]} " in
	*" LLVM=1 "*) echo "clang $(clang -dumpversion)" ;;
	*) echo "gcc $(gcc -dumpfullversion)" ;;
	esac
}

configure() {
	make -C "$src" O="$obj" "${archvars[@]}" "${mkvars[@]}" tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
			"$obj/.config" "${frags[@]}" &&
		make -C "$src" O="$obj" "${archvars[@]}" "${mkvars[@]}" olddefconfig
}
# merge_config.sh only warns; a fragment option that did not stick is a
# mistake in the fragment (a missing dependency), so refuse it here.
check_config() {
	local bad=0 line opt
	# Later fragments override earlier ones: check each option's
	# last setting.
	cat "${frags[@]}" | grep -E '^(CONFIG_[A-Z0-9_]+=|# CONFIG_[A-Z0-9_]+ is not set)' |
		tac | awk '{ o = $0; sub(/^# /, "", o); sub(/[= ].*/, "", o); if (!seen[o]++) print }' |
		while IFS= read -r line; do
			opt=${line#\# }
			opt=${opt%%[= ]*}
			case "$line" in
			"# "*) # off: absent (hidden by a dependency) counts too
				grep -q "^$opt=" "$obj/.config" || continue ;;
			*)
				grep -qxF "$line" "$obj/.config" && continue ;;
			esac
			echo "fragment option not in .config: $line"
			echo bad
		done | tee /dev/stderr | grep -q '^bad$' && bad=1
	return $bad
}
# -j: SNAPTRACE_KJOBS, or one more than the CPUs.
build() {
	make -C "$src" O="$obj" "${archvars[@]}" "${mkvars[@]}" \
		-j"${SNAPTRACE_KJOBS:-$(($(nproc) + 1))}" "$image" modules modules_prepare
}

# The steps as run: the architecture's make variables and image written
# out (for x86_64 the same text as before there was a choice, so that its
# cached kernels keep their keys).
recipe() {
	cat "${frags[@]}"
	declare -f configure check_config build |
		sed -e "s/\"\\\${archvars\[@\]}\"/${archvars[*]}/g" -e "s/\"\\\$image\"/$image/g"
}
key=$( { echo "$series"; compiler; recipe; } | hash_of -)
obj=$SNAPTRACE_CACHE/build/$name-$key
[ "$key_only" = 0 ] || { echo "$name-$key"; exit 0; }

# What a kernel was built from: "linux-source-<Debian version>", in
# $obj/.snaptrace-source. Before the key left the revision out it was in
# the key; such a tree of the current revision is adopted, not rebuilt.
built_from() {
	[ -f "$obj/.snaptrace-built" ] && [ -f "$obj/.snaptrace-source" ] &&
		[ -f "$SNAPTRACE_CACHE/src/$(cat "$obj/.snaptrace-source")/Makefile" ]
}
if ! built_from || [ "${SNAPTRACE_KERNEL_REFRESH:-0}" = 1 ]; then
	src=$(kernel_source_series "$series" | tail -n 1)
	[ -f "$src/Makefile" ] || die "no linux-source-$series"
	srcver=$(basename "$src")
	srcver=${srcver#linux-source-}
	old=$SNAPTRACE_CACHE/build/$name-$( { echo "$srcver"; recipe; } | hash_of -)
	if [ "${SNAPTRACE_KERNEL_REFRESH:-0}" != 1 ] && [ -f "$old/.snaptrace-built" ] &&
		[ ! -e "$obj" ]; then
		# Its O= tree names itself in generated files: link, not move.
		ln -s "$(basename "$old")" "$obj"
		echo "linux-source-$srcver" >"$obj/.snaptrace-source"
		say "kernel: $name: adopted $(basename "$old") (linux-source $srcver) as $name-$key"
	fi
fi
if ! built_from || [ "${SNAPTRACE_KERNEL_REFRESH:-0}" = 1 ]; then
	rm -rf "$obj"
	mkdir -p "$obj"
	stage "kernel: configure $name ($key)" "$log.config" configure
	stage "kernel: check $name config" "$log.check" check_config
	# check_config's status never says no: its grep -q ends the pipe
	# at the first "bad", tee then dies of SIGPIPE, and under pipefail
	# that status, not grep's, is the pipe's. Its report is read here
	# instead, so that the function, part of every cached kernel's key
	# (recipe), stays as it is and no kernel is rebuilt for the fix.
	! grep '^fragment option not in .config' "$log.check" >&2 ||
		die "kernel: $name: fragment options not in .config ($log.check)"
	stage "kernel: build $name $image+modules (a few minutes)" "$log" build
	echo "linux-source-$srcver" >"$obj/.snaptrace-source"
	touch "$obj/.snaptrace-built"
else
	if [ "$series" = 6.12 ]; then
		now=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || true)
	else
		now=$(newer_version "linux-source-$series" 2>/dev/null || true)
	fi
	was=$(cat "$obj/.snaptrace-source")
	say "kernel: $name ($key) cached in $obj, built from $was${now:+ (Debian has $now)}"
fi
echo "$obj"
