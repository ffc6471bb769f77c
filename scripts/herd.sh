#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# herd7 against the Linux-kernel memory model (LKMM), for the ring's litmus
# tests (tests/litmus/). herd7 is Debian's herdtools7, which only sid has,
# built against a newer glibc than Debian 12's: it runs in a sid chroot,
# debootstrap'ed once with herdtools7 and cached under
# $SNAPTRACE_CACHE/chroot, keyed by the suite, what it holds and this
# script's chroot recipe (as scripts/newer-stock.sh keys its trixie one).
# The model (linux-kernel.cat/.bell/.def/.cfg, lock.cat) is the kernel's own,
# tools/memory-model/ of Debian's linux-source-6.12 (make deps installs it):
# from the tree kernel_source unpacked if it is there, else that directory
# alone, taken out of the tarball once. Each run copies the model and the
# litmus files into the chroot's /tmp, runs herd7 there as root, and copies
# herd7's output back. Nothing is installed on the host but debootstrap.
#
# Usage: herd.sh [-o OUTDIR] FILE.litmus...
#   herd7's output for each FILE: on stdout, or in OUTDIR/NAME.out (NAME:
#   FILE's name without .litmus; OUTDIR/NAME.rc, herd7's exit status)
# A FILE may be relative to tools/memory-model/ (e.g.
# litmus-tests/MP+pooncerelease+poacquireonce.litmus), the kernel's own.
#        herd.sh --chroot   make (or find) the chroot only; prints its path
set -euo pipefail
. "$(dirname "$0")/lib.sh"
# debootstrap and chroot: root's work (sudo, as apt-get's).
[ "$(id -u)" -eq 0 ] ||
	exec sudo SNAPTRACE_CACHE="$SNAPTRACE_CACHE" SNAPTRACE_OUT="$SNAPTRACE_OUT" \
		_t0="$_t0" "$0" "$@"

suite=sid
# What the chroot holds besides minbase; with the suite, its cache key.
include=herdtools7
key=$(echo "$suite $include v1" | hash_of -)
root=$SNAPTRACE_CACHE/chroot/$suite-herd-$key
logs=$SNAPTRACE_OUT/logs

# herd_chroot: the sid chroot with herd7, made once (a stamp marks it whole).
herd_chroot() {
	local uri
	if [ -f "$root/.snaptrace-ready" ]; then
		say "herd: chroot $suite with $(cat "$root/.snaptrace-herd") cached"
		return 0
	fi
	command -v debootstrap >/dev/null || PATH=$PATH:/usr/sbin
	command -v debootstrap >/dev/null || die "debootstrap missing: run 'make deps'"
	rm -rf --one-file-system "$root"
	mkdir -p "$root"
	uri=$(sed -n 's/^URIs: *//p' /etc/apt/sources.list.d/debian.sources 2>/dev/null | head -n 1)
	stage "herd: chroot: debootstrap $suite ($include)" "$logs/chroot-$suite-herd.log" \
		nice debootstrap --variant=minbase --include="$include" \
		"$suite" "$root" "${uri:-http://deb.debian.org/debian}" || return
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin apt-get clean
	chroot "$root" dpkg-query -W -f='herdtools7 ${Version}' herdtools7 \
		>"$root/.snaptrace-herd"
	touch "$root/.snaptrace-ready"
	say "herd: chroot $suite with $(cat "$root/.snaptrace-herd") made"
}

# lkmm_dir: tools/memory-model of linux-source-6.12; prints its path. The
# whole tree if kernel_source unpacked it, else the directory alone,
# unpacked once beside it (never into a tree another run may be unpacking).
lkmm_dir() {
	local tarball=/usr/src/linux-source-6.12.tar.xz srcver d
	srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null) ||
		die "linux-source-6.12 is not installed: run 'make deps'"
	d=$SNAPTRACE_CACHE/src/linux-source-$srcver
	if [ -f "$d/.snaptrace-unpacked" ]; then
		echo "$d/tools/memory-model"
		return
	fi
	d=$SNAPTRACE_CACHE/src/lkmm-$srcver
	if [ ! -f "$d/.snaptrace-unpacked" ]; then
		[ -f "$tarball" ] || die "$tarball missing: run 'make deps'"
		rm -rf "$d"
		mkdir -p "$d"
		stage "herd: tools/memory-model of linux-source $srcver" "$logs/lkmm-unpack.log" \
			tar -xJf "$tarball" -C "$d" --strip-components=3 \
			linux-source-6.12/tools/memory-model >&2 || return
		touch "$d/.snaptrace-unpacked"
	fi
	echo "$d"
}

# herd_run OUTDIR MODEL FILE...: herd7 on each FILE with the LKMM of
# MODEL (a tools/memory-model directory), in the chroot; OUTDIR/NAME.out
# and OUTDIR/NAME.rc for each.
herd_run() {
	local out=$1 model=$2 f n w
	shift 2
	w=$root/tmp/snaptrace-lkmm
	rm -rf "$w"
	mkdir -p "$w/in" "$w/out"
	cp -r "$model/." "$w/"
	for f in "$@"; do
		[ -f "$f" ] || [ ! -f "$model/$f" ] || f=$model/$f
		[ -f "$f" ] || die "no litmus $f"
		n=$(basename "$f" .litmus)
		[ ! -e "$w/in/$n.litmus" ] || die "two litmus files named $n"
		cp "$f" "$w/in/$n.litmus"
	done
	# One chroot for the set; herd7 from the model's directory, as
	# tools/memory-model/README says.
	chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LANG=C.UTF-8 nice sh -c 'cd /tmp/snaptrace-lkmm && for f in in/*.litmus; do
			n=${f#in/}; n=${n%.litmus}
			herd7 -conf linux-kernel.cfg "$f" >"out/$n.out" 2>&1
			echo $? >"out/$n.rc"
		done'
	mkdir -p "$out"
	cp "$w"/out/* "$out/"
	rm -rf "$w"
}

out=""
case ${1:-} in
--chroot)
	herd_chroot >&2
	echo "$root"
	exit 0 ;;
-o)
	out=$(realpath -m "${2:?usage: herd.sh [-o OUTDIR] FILE.litmus...}")
	shift 2 ;;
esac
[ $# -gt 0 ] || die "usage: herd.sh [-o OUTDIR] FILE.litmus... | --chroot"
herd_chroot >&2
model=$(lkmm_dir)
if [ -n "$out" ]; then
	stage "herd: herd7 on $# litmus tests" "$logs/herd.log" herd_run "$out" "$model" "$@"
else
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	herd_run "$tmp" "$model" "$@"
	rc=0
	for f in "$@"; do
		n=$(basename "$f" .litmus)
		cat "$tmp/$n.out"
		[ "$(cat "$tmp/$n.rc")" = 0 ] || rc=1
	done
	exit $rc
fi
