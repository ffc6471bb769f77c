#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the KUnit test kernel from Debian's linux-source-6.12 and the config
# fragment(s) in kconfig/, cached outside the clone and keyed by a hash of
# the source package version, the fragments and this script.
#
# Usage: kernel-kunit.sh [FRAGMENT...]   (default: kconfig/kunit.config)
# Prints the build directory (a kernel tree for `make -C ... M=`) on stdout's
# last line.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

frags=("$@")
[ ${#frags[@]} -gt 0 ] || frags=("$SNAPTRACE_TOP/kconfig/kunit.config")

srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
	die "linux-source-6.12 is not installed: run 'make deps'"
tarball=/usr/src/linux-source-6.12.tar.xz
[ -f "$tarball" ] || die "$tarball missing: run 'make deps'"

src=$SNAPTRACE_CACHE/src/linux-source-$srcver
if [ ! -f "$src/.snaptrace-unpacked" ]; then
	rm -rf "$src"
	mkdir -p "$src"
	stage "kernel: unpack linux-source $srcver" "$SNAPTRACE_OUT/logs/unpack.log" \
		tar -xJf "$tarball" -C "$src" --strip-components=1
	touch "$src/.snaptrace-unpacked"
fi

key=$( { echo "$srcver"; cat "${frags[@]}" "$0"; } | hash_of -)
name=$(basename "${frags[-1]}" .config)
# A fragment may ask for make variables (clang.config: LLVM=1) with a
# "# snaptrace-make: VAR=VALUE" line.
read -r -a mkvars <<<"$(sed -n 's/^# snaptrace-make: //p' "${frags[@]}" | tr '\n' ' ')"
obj=$SNAPTRACE_CACHE/build/$name-$key
log=$SNAPTRACE_OUT/logs/kernel-$name.log

if [ ! -f "$obj/.snaptrace-built" ]; then
	rm -rf "$obj"
	mkdir -p "$obj"
	configure() {
		make -C "$src" O="$obj" ARCH=x86_64 "${mkvars[@]}" tinyconfig &&
			"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" \
				"$obj/.config" "${frags[@]}" &&
			make -C "$src" O="$obj" ARCH=x86_64 "${mkvars[@]}" olddefconfig
	}
	stage "kernel: configure $name ($key)" "$log.config" configure
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
	stage "kernel: check $name config" "$log.check" check_config
	stage "kernel: build $name bzImage+modules (a few minutes)" "$log" \
		make -C "$src" O="$obj" ARCH=x86_64 "${mkvars[@]}" -j"$(($(nproc) + 1))" bzImage modules modules_prepare
	touch "$obj/.snaptrace-built"
else
	say "kernel: $name ($key) cached in $obj"
fi
echo "$obj"
