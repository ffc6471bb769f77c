#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make fuzz: libFuzzer (clang, ASan + UBSan) on the firmware parsers, built
# in user space from the module's own src/fw_elf.c and src/fw_rsc.c.
# Seeds: the committed corpus tests/fuzz/corpus/ (small hand-made images
# and tables, one per bad-input class, written by tests/fuzz/mkcorpus.py,
# which must still write the same files), our example images and their
# broken variants (scripts/firmware.sh) and the real images of ../shared
# (SNAPTRACE_SHARED) when present; the corpus grows in out/fuzz/corpus.
# A crash leaves its input in out/fuzz/ and fails.
#
# Usage: fuzz.sh [SECONDS]   (default 60)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

secs=${1:-60}
dir=$SNAPTRACE_OUT/fuzz
mkdir -p "$dir/corpus"
build() {
	clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
		-I"$SNAPTRACE_TOP/tests/fuzz/shim" -I/usr/include -I"$SNAPTRACE_TOP/src" \
		-I"$SNAPTRACE_TOP/include" \
		-o "$dir/fw_fuzz" "$SNAPTRACE_TOP/tests/fuzz/fuzz.c" \
		"$SNAPTRACE_TOP/src/fw_elf.c" "$SNAPTRACE_TOP/src/fw_rsc.c"
}
stage "fuzz: build the parsers with libFuzzer, ASan, UBSan" "$dir/build.log" build
[ -d "$SNAPTRACE_OUT/firmware/snaptrace" ] ||
	"$SNAPTRACE_TOP/scripts/firmware.sh" "$SNAPTRACE_OUT/firmware" >/dev/null
rm -rf "$dir/seeds"
python3 "$SNAPTRACE_TOP/tests/fuzz/mkcorpus.py" "$dir/seeds"
diff -r "$dir/seeds" "$SNAPTRACE_TOP/tests/fuzz/corpus" >&2 ||
	die "fuzz: tests/fuzz/corpus differs from what tests/fuzz/mkcorpus.py writes"
cp "$SNAPTRACE_TOP"/tests/fuzz/corpus/* "$dir/corpus/"
find "$SNAPTRACE_OUT/firmware" -name '*.elf' -exec cp {} "$dir/corpus/" \;
fixtures=${SNAPTRACE_SHARED:-$SNAPTRACE_TOP/../shared}/fixtures/firmware
if [ -d "$fixtures" ]; then
	cp "$fixtures"/*.elf "$dir/corpus/"
fi
say "fuzz: $(ls "$dir/corpus" | wc -l) inputs to start from"
run() {
	cd "$dir" && ./fw_fuzz -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$dir/" corpus
}
if ! stage "fuzz: run ${secs}s" "$dir/run.log" run; then
	die "fuzz: a crash; its input is in $dir (crash-*)"
fi
grep -E '^stat::number_of_executed_units|^stat::average_exec_per_sec' "$dir/run.log" |
	sed 's/^/    /' >&2
