#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build a KUnit test kernel from Debian's linux-source-SERIES (6.12 from
# Debian 12, newer ones fetched by lib.sh's private apt configuration) and
# the config fragment(s) in kconfig/, cached outside the clone and keyed by
# a hash of the source package version, the fragments and the recipe (the
# configure, check and build steps below).
#
# Usage: [SNAPTRACE_KSERIES=7.3] kernel-kunit.sh [FRAGMENT...]
#        (default series 6.12, fragment kconfig/kunit.config)
# Prints the build directory (a kernel tree for `make -C ... M=`) on stdout's
# last line.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

frags=("$@")
[ ${#frags[@]} -gt 0 ] || frags=("$SNAPTRACE_TOP/kconfig/kunit.config")
series=${SNAPTRACE_KSERIES:-6.12}

src=$(kernel_source_series "$series" | tail -n 1)
[ -f "$src/Makefile" ] || die "no linux-source-$series"
srcver=$(basename "$src")
srcver=${srcver#linux-source-}

name=$(basename "${frags[-1]}" .config)
# The 6.12 kernels keep their bare names; newer series say theirs.
[ "$series" = 6.12 ] || name=$name-$series
# A fragment may ask for make variables (clang.config: LLVM=1) with a
# "# snaptrace-make: VAR=VALUE" line.
read -r -a mkvars <<<"$(sed -n 's/^# snaptrace-make: //p' "${frags[@]}" | tr '\n' ' ')"
log=$SNAPTRACE_OUT/logs/kernel-$name.log

configure() {
	make -C "$src" O="$obj" ARCH=x86_64 "${mkvars[@]}" tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
			"$obj/.config" "${frags[@]}" &&
		make -C "$src" O="$obj" ARCH=x86_64 "${mkvars[@]}" olddefconfig
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
	make -C "$src" O="$obj" ARCH=x86_64 "${mkvars[@]}" \
		-j"${SNAPTRACE_KJOBS:-$(($(nproc) + 1))}" bzImage modules modules_prepare
}

key=$( { echo "$srcver"; cat "${frags[@]}"; declare -f configure check_config build; } |
	hash_of -)
obj=$SNAPTRACE_CACHE/build/$name-$key

if [ ! -f "$obj/.snaptrace-built" ]; then
	rm -rf "$obj"
	mkdir -p "$obj"
	stage "kernel: configure $name ($key)" "$log.config" configure
	stage "kernel: check $name config" "$log.check" check_config
	stage "kernel: build $name bzImage+modules (a few minutes)" "$log" build
	touch "$obj/.snaptrace-built"
else
	say "kernel: $name ($key) cached in $obj"
fi
echo "$obj"
