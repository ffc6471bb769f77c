#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The first module of one's own, as a new user follows it from README.md
# ("Your own module") to Documentation/api.rst's "Building a module against
# the API", so the section cannot drift: its Kbuild and mymod.c blocks
# (".. code-block:: make" and "c") become a module directory, and its
# ".. code-block:: sh" commands run: `sudo make install` installs snaptrace
# (built from a copy of the clone) and `make -C ...` builds mymod.ko
# against what was installed, for KDIR's kernel. Installed into a staging
# tree (INSTALL_MOD_PATH), never the system: the page's /lib/modules/ and
# /usr/src/snaptrace-<version>/ are rewritten to point into it. The build
# without KBUILD_EXTRA_SYMBOLS must fail with the modpost error the page
# quotes. The commands that load the modules and read the snapshot are
# tests/scenarios/readme-module.sh's, which quotes them (checked here).
#
# OUTDIR gets snaptrace.ko as installed (decompressed) and mymod.ko, for
# tests/qemu/qemu-run.sh --modules OUTDIR --scenario
# tests/scenarios/readme-module.sh.
#
# Usage: readme-module.sh KDIR OUTDIR
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

kdir=${1:?usage: readme-module.sh KDIR OUTDIR}
out=$(realpath -m "${2:?usage: readme-module.sh KDIR OUTDIR}")
[ -f "$kdir/Makefile" ] || die "no kernel tree at $kdir"
doc=$SNAPTRACE_TOP/Documentation/api.rst
title="Building a module against the API"
scen=$SNAPTRACE_TOP/tests/scenarios/readme-module.sh
ver=$(sed -n 's/^#define SNAPTRACE_VERSION "\(.*\)"$/\1/p' \
	"$SNAPTRACE_TOP/include/snaptrace/snaptrace.h")
kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$/\1/p' "$kdir/include/generated/utsrelease.h")
[ -n "$ver" ] || die "no SNAPTRACE_VERSION in include/snaptrace/snaptrace.h"
[ -n "$kver" ] || die "no UTS_RELEASE in $kdir"
log=$SNAPTRACE_OUT/logs/readme-module-$kver.log
: >"$log"

rm -rf "$out"
mkdir -p "$out"/{clone,stage,mymod}
stage=$out/stage

# The section: from its title to the next title (a line underlined with
# "=" or "-" at least as long), its subsections' included.
section=$(awk -v t="$title" '
	{ line[NR] = $0 }
	END {
		for (i = 1; i <= NR; i++) {
			if (i < NR && line[i] ~ /[^ ]/ && line[i + 1] ~ /^(=+|-+)$/ &&
			    length(line[i + 1]) >= length(line[i]))
				f = line[i] == t
			if (f)
				print line[i]
		}
	}' "$doc")
[ -n "$section" ] || die "$doc has no \"$title\" section"
# block TYPE: the section's ".. code-block:: TYPE" blocks, their
# indentation (the first line's) taken off, blank lines between their
# lines kept and none after; a block ends at a line that is not indented.
block() {
	awk -v t="$1" '
		$0 == ".. code-block:: " t { f = 1; ind = 0; nb = 0; next }
		f && /^[^ \t]/ { f = 0 }
		!f { next }
		/^[ \t]*$/ { if (ind) nb++; next }
		{
			if (!ind) { match($0, /^[ \t]+/); ind = RLENGTH }
			for (; nb > 0; nb--)
				print ""
			print substr($0, ind + 1)
		}' <<<"$section"
}
block make >"$out/mymod/Kbuild"
block c >"$out/mymod/mymod.c"
if [ ! -s "$out/mymod/Kbuild" ] || [ ! -s "$out/mymod/mymod.c" ]; then
	die "$doc: no code-block make or c in \"$title\""
fi
# README.md's "Your own module" shows lines of this mymod.c: each one must
# be a line of it (indentation aside).
readme=$SNAPTRACE_TOP/README.md
shown=$(awk '/^## /{f = /^## Your own module/} f' "$readme" |
	awk '$0 == "```c" {f = 1; next} /^```/ {f = 0} f')
[ -n "$shown" ] || die "README.md: no \`\`\`c block in \"## Your own module\""
while IFS= read -r l; do
	[ -z "$l" ] || sed 's/^[[:space:]]*//' "$out/mymod/mymod.c" | grep -qxF -- "$l" ||
		die "README.md shows a line that $doc's mymod.c does not have: $l"
done <<<"$shown"
# The shell commands: continuation lines joined.
mapfile -t cmds < <(block sh | sed -e ':a' -e '/\\$/{N;s/[[:space:]]*\\\n[[:space:]]*/ /;ba}')
[ "${#cmds[@]}" -gt 0 ] || die "$doc: no code-block sh in \"$title\""

# The guest's commands, as the scenario quotes them.
quoted() { sed -n "s/^$1='\(.*\)'\$/\1/p" "$scen"; }
load=$(quoted README_LOAD) cat_cmd=$(quoted README_CAT)
if [ -z "$load" ] || [ -z "$cat_cmd" ]; then
	die "$scen: no README_LOAD or README_CAT"
fi
# As the page writes them: each command through sudo.
load="sudo ${load%% && *} && sudo ${load#* && }" cat_cmd="sudo $cat_cmd"

# The page's paths, pointed at KDIR and the staging tree; any other
# path of the system (another version, another directory) fails.
staged() {
	local c=$1 rest
	c=${c//\/lib\/modules\/\$(uname -r)\/build/$kdir}
	c=${c//\$(uname -r)/$kver}
	c=${c//\/lib\/modules\//$stage/lib/modules/}
	c=${c//\/usr\/src\/snaptrace-$ver/$stage/usr/src/snaptrace-$ver}
	rest=${c//$kdir/}
	rest=${rest//$stage\/lib\/modules\//}
	rest=${rest//$stage\/usr\/src\/snaptrace-$ver/}
	case $rest in
	*/lib/modules* | */usr/src/*) die "$doc: a path not under test: $1" ;;
	esac
	echo "$c"
}

cp -r "$SNAPTRACE_TOP"/{Makefile,Kbuild,Kconfig,src,include,compat-include} "$out/clone/"
built=0
for c in "${cmds[@]}"; do
	case $c in
	"sudo make install")
		say "readme-module: $c (KDIR=$kdir, INSTALL_MOD_PATH=$stage)"
		make -C "$out/clone" -j2 install KDIR="$kdir" INSTALL_MOD_PATH="$stage" \
			>>"$log" 2>&1 || { tail -n 30 "$log" >&2; die "make install failed ($log)"; }
		;;
	"make -C "*)
		c=$(staged "$c")
		# What a user sees who forgets KBUILD_EXTRA_SYMBOLS: the page
		# quotes modpost's first error, as a literal on one line.
		(cd "$out/mymod" && eval "${c% KBUILD_EXTRA_SYMBOLS=*}") >"$out/nosym.log" 2>&1 &&
			die "mymod.ko built without KBUILD_EXTRA_SYMBOLS"
		first=$(grep -m1 '^ERROR: modpost: ' "$out/nosym.log" |
			sed "s|\[$out/mymod/|[.../|")
		grep -qF "\`\`$first\`\`" "$doc" ||
			die "$doc does not quote modpost's first error: $first"
		say "readme-module: without KBUILD_EXTRA_SYMBOLS: $first"
		rm -f "$out/mymod/"*.ko
		say "readme-module: $c"
		(cd "$out/mymod" && eval "$c") >>"$log" 2>&1 ||
			{ tail -n 30 "$log" >&2; die "the page's build of mymod.ko failed ($log)"; }
		if grep -n 'warning:' "$log" >&2; then
			die "the page's module builds with warnings ($log)"
		fi
		built=1
		;;
	"$load" | "$cat_cmd") ;;
	*) die "$doc: a command no test runs: $c" ;;
	esac
done
[ "$built" = 1 ] || die "$doc builds no mymod.ko"
for c in "$load" "$cat_cmd"; do
	printf '%s\n' "${cmds[@]}" | grep -qxF "$c" ||
		die "$doc lacks the scenario's command: $c"
done

# The module as make install left it (modules_install compresses it on
# kernels with CONFIG_MODULE_COMPRESS_ALL; busybox's insmod wants it
# plain), and mymod.ko.
ko=$(find "$stage/lib/modules/$kver/updates" -name 'snaptrace.ko*' | head -n 1)
case "$ko" in
*.ko) cp "$ko" "$out/snaptrace.ko" ;;
*.ko.xz) xz -dc "$ko" >"$out/snaptrace.ko" ;;
*.ko.gz) gzip -dc "$ko" >"$out/snaptrace.ko" ;;
*.ko.zst) zstd -qdc "$ko" >"$out/snaptrace.ko" ;;
*) die "make install left no snaptrace.ko in updates/ (${ko:-none})" ;;
esac
cp "$out/mymod/mymod.ko" "$out/"
say "readme-module: snaptrace.ko (installed) and mymod.ko (Documentation/api.rst) -> $out"
