#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages snaptrace needs to build, boot and test.
# Idempotent: packages already present are left alone; apt-get runs via sudo
# when not root.
#
# Usage: deps.sh [PKG...]   only PKGs when given (make shell needs fewer),
#                           and nothing at all when they are all installed
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PKGS="build-essential bc bison flex libelf-dev libssl-dev cpio xz-utils kmod
 busybox-static qemu-system-x86 qemu-system-arm python3 sparse clang lld llvm
 gcc-arm-none-eabi gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf
 dkms libclang-rt-14-dev gnuplot-nox debootstrap
 linux-source-6.12 $STOCK_METAS"

[ $# -eq 0 ] || PKGS="$*"

stamp=$SNAPTRACE_CACHE/deps.$(echo "$PKGS" | hash_of -)
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed' ||
		missing="$missing $p"
done
if [ -z "$missing" ] && { [ $# -gt 0 ] || [ -f "$stamp" ]; }; then
	say "deps: all installed"
	exit 0
fi

log=$SNAPTRACE_OUT/logs/deps.log
export DEBIAN_FRONTEND=noninteractive
stage "deps: apt-get update" "$log.update" as_root apt-get update
stage "deps: apt-get install${missing:- (check)}" "$log" \
	as_root apt-get install -y --no-install-recommends $PKGS
touch "$stamp"
