# SPDX-License-Identifier: GPL-2.0
# Shared helpers for the snaptrace scripts: stage timing, logs, cache paths.
# Sourced, not executed.

SNAPTRACE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SNAPTRACE_CACHE=${SNAPTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/snaptrace}
SNAPTRACE_OUT=${SNAPTRACE_OUT:-$SNAPTRACE_TOP/out}
mkdir -p "$SNAPTRACE_CACHE" "$SNAPTRACE_OUT/logs"

_t0=${_t0:-$(date +%s)}
export _t0

# say MSG: one progress line on stderr, prefixed with the elapsed time of
# the whole run (stdout is kept for results).
say() {
	local now
	now=$(date +%s)
	printf '[%4ds] %s\n' $((now - _t0)) "$*" >&2
}

# stage NAME LOG CMD...: run CMD with its output in LOG, one line for the
# start and one for the end with the stage's duration; on failure print the
# log's tail and return the command's status.
stage() {
	local name=$1 log=$2 s rc
	shift 2
	s=$(date +%s)
	say "$name ..."
	if "$@" >"$log" 2>&1; then
		say "$name: ok ($(($(date +%s) - s))s, log $log)"
		return 0
	else
		rc=$?
		say "$name: FAILED rc=$rc ($(($(date +%s) - s))s, log $log); last lines:"
		tail -n 40 "$log" | sed 's/^/    | /' >&2
		return $rc
	fi
}

die() {
	say "error: $*"
	exit 1
}

# as_root CMD...: run CMD as root, via sudo when we are not root.
as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	else
		sudo "$@"
	fi
}

# hash_of FILE...|-: short content hash of the given files and strings, used
# to key cache entries by their inputs.
hash_of() {
	cat "$@" | sha256sum | cut -c1-16
}

# kernel_source: Debian's linux-source-6.12, unpacked once into the cache
# (the tree the test kernels build from, and home of checkpatch.pl,
# kernel-doc and kunit.py); prints its path. (scripts/kernel-kunit.sh still
# has its own copy of these lines: they are part of its cache key.)
kernel_source() {
	local srcver tarball=/usr/src/linux-source-6.12.tar.xz src
	srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
		die "linux-source-6.12 is not installed: run 'make deps'"
	src=$SNAPTRACE_CACHE/src/linux-source-$srcver
	if [ ! -f "$src/.snaptrace-unpacked" ]; then
		[ -f "$tarball" ] || die "$tarball missing: run 'make deps'"
		rm -rf "$src"
		mkdir -p "$src"
		stage "unpack linux-source $srcver" "$SNAPTRACE_OUT/logs/unpack.log" \
			tar -xJf "$tarball" -C "$src" --strip-components=1 >&2 || return
		touch "$src/.snaptrace-unpacked"
	fi
	echo "$src"
}

# The Debian kernels we build against and boot. The meta packages name the
# current ABI of each flavour; resolve it rather than hard-code it.
STOCK_METAS="linux-headers-amd64 linux-headers-6.12-amd64 linux-headers-6.12-rt-amd64"

# stock_kver META: the kernel release (uname -r) a headers meta package points at.
stock_kver() {
	apt-cache depends "$1" 2>/dev/null |
		sed -n 's/.*Depends: linux-headers-\(.*\)$/\1/p' | head -n 1
}

# demo_stock_kernel: what make demo and make demo-remote boot. Installs the
# packages, builds the module for Debian's stock 6.12 kernel and fetches
# that kernel; sets DEMO_KVER, DEMO_MODS (the modules) and DEMO_VMLINUZ.
demo_stock_kernel() {
	"$SNAPTRACE_TOP/scripts/deps.sh"
	kernel_source >/dev/null # kunit.py, which the runner parses KTAP with
	DEMO_KVER=$(stock_kver linux-headers-6.12-amd64)
	[ -n "$DEMO_KVER" ] || die "cannot resolve linux-headers-6.12-amd64"
	DEMO_MODS=$SNAPTRACE_OUT/build/$DEMO_KVER
	"$SNAPTRACE_TOP/scripts/build-module.sh" "/usr/src/linux-headers-$DEMO_KVER" "$DEMO_MODS"
	DEMO_VMLINUZ=$("$SNAPTRACE_TOP/scripts/stock-kernel.sh" "$DEMO_KVER" | tail -n 1)
}

# SPLAT_RE: what fails a boot when it shows on the console (lockdep reports
# begin with "WARNING:" or "BUG:").
SPLAT_RE='BUG:|WARNING:|KASAN:|UBSAN:|sleeping function called from invalid context|Oops|Kernel panic|general protection fault|soft lockup|hard LOCKUP|rcu_.*detected stall|INFO: task .* blocked|unreferenced object|Call Trace:'

# drop_fault_reports <CONSOLE >OUT: the console without what an injected
# allocation fault prints, vmalloc's warn_alloc() report (a failed page or
# slab allocation returns before any warning): each up to the end of its
# stack, at most 100 lines, and never past the start of another report.
# scripts/runner-selftest.sh checks each of those limits.
drop_fault_reports() {
	awk -v splat="$SPLAT_RE" '
	     /vmalloc error: / { skip = 1; n = 0; next }
	     skip && /<\/TASK>/ { skip = 0; next }
	     skip && ++n > 100 { skip = 0 }
	     skip && $0 ~ splat && !/Call Trace:/ { skip = 0 }
	     !skip { print }'
}
