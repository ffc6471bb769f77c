#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the example remote firmware images from fw/ and the ARM remote of
# fw/arm-remote/ (run by qemu-system-arm in scripts/remote-demo.sh), and
# stage the guest's /lib/firmware: our images under snaptrace/ (and broken
# variants of them,
# one per bad-input class, under snaptrace/bad64 and bad32), the real images of
# ../shared/fixtures/firmware (when present) under snaptrace-fixtures/.
#
# --x86-only: example64.elf and its broken variants only, with the host's
# compiler (make demo's remote runs example64.elf; the others need
# gcc-arm-none-eabi, which make demo does not install).
#
# Usage: firmware.sh [--x86-only] OUTDIR   (OUTDIR becomes the guest's /lib/firmware)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

arm=1
if [ "${1:-}" = --x86-only ]; then
	arm=0
	shift
fi
out=$(realpath -m "${1:?usage: firmware.sh [--x86-only] OUTDIR}")
src=$SNAPTRACE_TOP/fw
rm -rf "$out"
mkdir -p "$out/snaptrace"

build() {
	local flags="-O2 -nostdlib -ffreestanding -Wl,-T,$src/fw.ld -Wl,--build-id=none"
	# The resource table's layout comes from the header the host parses it with.
	flags="$flags -I$src/include -I$SNAPTRACE_TOP/include"

	# ELF64, little-endian x86-64, with the host's compiler.
	gcc $flags -static -fno-pic -no-pie -fno-asynchronous-unwind-tables \
		-o "$out/snaptrace/example64.elf" "$src/example.c" || return
	if [ $arm = 0 ]; then
		readelf -SW "$out/snaptrace/example64.elf" | grep -q '\.resource_table' &&
			mkdir -p "$out/snaptrace/bad64" &&
			python3 "$SNAPTRACE_TOP/scripts/badfw.py" \
				"$out/snaptrace/example64.elf" "$out/snaptrace/bad64"
		return
	fi
	# ELF32, little-endian ARM (Cortex-M4), as STM32MP1 firmware is.
	arm-none-eabi-gcc $flags -mcpu=cortex-m4 -mthumb \
		-o "$out/snaptrace/example32.elf" "$src/example.c" || return
	# The real remote: a bare-metal Cortex-A15 image for QEMU's virt.
	arm-none-eabi-gcc -O2 -nostdlib -ffreestanding -Wall -Wextra -Werror \
		-mcpu=cortex-a15 -mthumb -mfloat-abi=soft -mno-unaligned-access \
		-I"$src/include" -I"$SNAPTRACE_TOP/include" \
		-Wl,-T,"$src/arm-remote/remote.ld" -Wl,--build-id=none \
		-o "$out/snaptrace/arm-remote.elf" \
		"$src/arm-remote/start.S" "$src/arm-remote/remote.c" -lgcc || return
	readelf -SW "$out/snaptrace/example64.elf" "$out/snaptrace/example32.elf" \
		"$out/snaptrace/arm-remote.elf" |
		grep -c '\.resource_table' | grep -qx 3 || return
	# One broken image per bad-input class, of each class of ELF.
	mkdir -p "$out/snaptrace/bad64" "$out/snaptrace/bad32" &&
		python3 "$SNAPTRACE_TOP/scripts/badfw.py" \
			"$out/snaptrace/example64.elf" "$out/snaptrace/bad64" &&
		python3 "$SNAPTRACE_TOP/scripts/badfw.py" \
			"$out/snaptrace/example32.elf" "$out/snaptrace/bad32"
}
if [ $arm = 1 ]; then
	stage "firmware: build example64.elf, example32.elf and arm-remote.elf" \
		"$SNAPTRACE_OUT/logs/firmware.log" build
else
	stage "firmware: build example64.elf" "$SNAPTRACE_OUT/logs/firmware.log" build
fi

fixtures=${SNAPTRACE_SHARED:-$SNAPTRACE_TOP/../shared}/fixtures/firmware
if [ -d "$fixtures" ]; then
	mkdir -p "$out/snaptrace-fixtures"
	cp "$fixtures"/*.elf "$out/snaptrace-fixtures/"
	say "firmware: staged $(ls "$fixtures"/*.elf | wc -l) real images from $fixtures"
else
	say "firmware: $fixtures absent: the tests that use real images will be skipped"
fi
