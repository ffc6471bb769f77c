#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The interleaving explorer of the ring (tests/explore/explore.c): builds it
# in user space from the ring's own sources and runs it.
#
#   run.sh --check     make check's stage: every named scenario at its
#                      systematic bound, then EXPLORE_RANDOM (200000) seeded
#                      random runs; one line per stage, logs in out/explore/
#   run.sh --soak      make explore: EXPLORE_RUNS (4000000, about 30 minutes) random runs
#   run.sh --build     build only (out/explore/explore)
#   run.sh ARGS...     build, then run the explorer with ARGS (--replay ...)
#
# EXPLORE_SRC=/path/to/src explores the ring of another tree (its ring.h,
# ring*.c and internal.h; the shim and scenarios are this tree's).
# EXPLORE_SEED (1) is the first seed of the random runs.
set -euo pipefail
. "$(dirname "$0")/../../scripts/lib.sh"

src=${EXPLORE_SRC:-$SNAPTRACE_TOP/src}
src=$(cd "$src" && pwd)
dir=$SNAPTRACE_OUT/explore
bin=$dir/explore
mkdir -p "$dir"

build() {
	gcc -std=gnu11 -O1 -g -Wall -Werror=implicit-function-declaration -Wno-maybe-uninitialized \
		-I"$SNAPTRACE_TOP/tests/explore/shim" -I"$SNAPTRACE_TOP/include" \
		-I"$src" -I"$SNAPTRACE_TOP/tests/explore" \
		-o "$bin" "$SNAPTRACE_TOP/tests/explore/explore.c" "$src"/ring*.c
}

case ${1:-} in
--build)
	stage "explore: build against $src" "$dir/build.log" build
	;;
--check)
	stage "explore: build against $src" "$dir/build.log" build || exit 1
	rc=0
	stage "explore: systematic, every named scenario at its bound" \
		"$dir/systematic.log" "$bin" --systematic || rc=1
	grep -E '^systematic ' "$dir/systematic.log" | sed 's/^/    /' >&2 || true
	stage "explore: ${EXPLORE_RANDOM:-200000} random runs from seed ${EXPLORE_SEED:-1}" \
		"$dir/random.log" "$bin" --random "${EXPLORE_RANDOM:-200000}" \
		--seed "${EXPLORE_SEED:-1}" || rc=1
	grep -E '^random' "$dir/random.log" | sed 's/^/    /' >&2 || true
	if [ "$rc" != 0 ]; then
		say "explore: FAILED; the first failures and their replay commands:"
		grep -hE '^FAIL|replay:' "$dir/systematic.log" "$dir/random.log" |
			head -n 20 | sed 's/^/    /' >&2
	fi
	exit $rc
	;;
--soak)
	stage "explore: build against $src" "$dir/build.log" build || exit 1
	rc=0
	stage "explore: ${EXPLORE_RUNS:-4000000} random runs from seed ${EXPLORE_SEED:-1}" \
		"$dir/soak.log" "$bin" --random "${EXPLORE_RUNS:-4000000}" \
		--seed "${EXPLORE_SEED:-1}" --reports 20 || rc=1
	grep -E '^random' "$dir/soak.log" | sed 's/^/    /' >&2 || true
	exit $rc
	;;
*)
	build >"$dir/build.log" 2>&1 || { cat "$dir/build.log" >&2; exit 1; }
	exec "$bin" "$@"
	;;
esac
