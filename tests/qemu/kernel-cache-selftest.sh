#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The test kernels' cache (kernel-kunit.sh) when Debian uploads a new
# revision of linux-source-SERIES: a kernel built from an older revision
# is used as it is, not rebuilt; a new compiler version or fragment is a
# new kernel. Runs in a made-up cache with make and tar that fail, so that
# a miss shows as a failed build, not as twenty minutes of one. One line
# per case; exit status 1 if any fails. Run by check.sh, on the host.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

kk=$SNAPTRACE_TOP/tests/qemu/kernel-kunit.sh
frag=$SNAPTRACE_TOP/kconfig/kunit.config
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fails=0
result() { # result OK WHAT
	if [ "$1" = 0 ]; then echo "ok: $2"; else echo "FAIL: $2"; fails=1; fi
}
mkdir -p "$tmp/bin"
for t in make tar; do
	printf '#!/bin/sh\necho "%s: not in this test" >&2\nexit 1\n' "$t" >"$tmp/bin/$t"
done
chmod +x "$tmp/bin/make" "$tmp/bin/tar"
export SNAPTRACE_OUT=$tmp/out

# A kernel cached from a revision Debian has replaced (its source tree
# kept in the cache): used, and said to be from that revision.
c=$tmp/cache
key=$(SNAPTRACE_CACHE=$c "$kk" --key "$frag")
old=linux-source-6.12.1-1~deb12u1
mkdir -p "$c/build/$key" "$c/src/$old"
touch "$c/src/$old/Makefile" "$c/build/$key/.snaptrace-built"
echo "$old" >"$c/build/$key/.snaptrace-source"
out=$(PATH=$tmp/bin:$PATH SNAPTRACE_CACHE=$c "$kk" "$frag" 2>&1) && rc=0 || rc=$?
[ "$rc" = 0 ] && [ "$(tail -n 1 <<<"$out")" = "$c/build/$key" ] &&
	grep -q "cached in .*, built from $old" <<<"$out"
result $? "a kernel built from an older linux-source revision is kept"

# Its source tree gone (a cache pruned by hand): a miss, not a build
# against nothing.
rm -rf "${c:?}/src/$old"
PATH=$tmp/bin:$PATH SNAPTRACE_CACHE=$c "$kk" "$frag" >"$tmp/miss" 2>&1 && rc=0 || rc=$?
[ "$rc" != 0 ] && ! grep -q "cached in" "$tmp/miss" && grep -q "not in this test" "$tmp/miss"
result $? "a cached kernel whose source tree is gone is rebuilt"

# Fragment options that did not stick (a missing dependency): refused
# after configure, before the build. configure's make writes a .config
# with only the fragment's first option, so that check_config reports
# many (its own status hid that: tests/qemu/kernel-kunit.sh); the
# build's make fails.
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
c2=$tmp/cache2
mkdir -p "$c2/src/linux-source-$srcver/scripts/kconfig" "$tmp/cfgbin"
touch "$c2/src/linux-source-$srcver/Makefile" "$c2/src/linux-source-$srcver/.snaptrace-unpacked"
printf '#!/bin/sh\nexit 0\n' >"$c2/src/linux-source-$srcver/scripts/kconfig/merge_config.sh"
first=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$frag" | head -n 1)
last=$(grep -E '^CONFIG_[A-Z0-9_]+=' "$frag" | tail -n 1)
cat >"$tmp/cfgbin/make" <<EOS
#!/bin/sh
for a; do
	case \$a in O=*) o=\${a#O=} ;; esac
done
case " \$* " in
*" tinyconfig "* | *" olddefconfig "*)
	echo '$first' >"\$o/.config"
	exit 0 ;;
esac
echo "build: not in this test" >&2
exit 1
EOS
chmod +x "$tmp/cfgbin/make" "$c2/src/linux-source-$srcver/scripts/kconfig/merge_config.sh"
PATH=$tmp/cfgbin:$PATH SNAPTRACE_CACHE=$c2 "$kk" "$frag" >"$tmp/frag" 2>&1 && rc=0 || rc=$?
[ "$rc" != 0 ] && grep -qF "fragment option not in .config: $last" "$tmp/frag" &&
	! grep -q "build: not in this test" "$tmp/frag"
result $? "fragment options missing from .config fail before the build"

# The key: the compiler's version and the fragments, not the revision.
mkdir -p "$tmp/dpkg"
printf '#!/bin/sh
printf 6.12.999-9~deb12u9
' >"$tmp/dpkg/dpkg-query"
chmod +x "$tmp/dpkg/dpkg-query"
[ "$(PATH=$tmp/dpkg:$PATH "$kk" --key "$frag")" = "$key" ]
result $? "another linux-source revision is the same kernel"
printf '#!/bin/sh\necho 99.1.0\n' >"$tmp/bin/gcc"
chmod +x "$tmp/bin/gcc"
[ "$(PATH=$tmp/bin:$PATH "$kk" --key "$frag")" != "$key" ]
result $? "another gcc version is another kernel"
printf '# made up\nCONFIG_PRINTK=y\n' >"$tmp/extra.config"
[ "$("$kk" --key "$frag" "$tmp/extra.config")" != "$("$kk" --key "$frag" "$tmp/extra.config" "$tmp/extra.config")" ] &&
	[ "$("$kk" --key "$frag")" = "$key" ]
result $? "another fragment is another kernel; the same inputs the same key"

exit $fails
