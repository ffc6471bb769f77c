#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# bench: snaptrace against ftrace's ring buffer and snapshot, in one boot.
# Not a test: it measures, and prints every measurement as a line
#
#   BENCH {"t":"...", ...}
#
# that scripts/bench.sh collects from the console (the kernel's lines come
# from snaptrace_bench.ko, the others from here). Nothing is judged here;
# the steps only say whether each part ran.
#
# Knobs, from the kernel command line (unknown NAME=VALUE words become
# init's environment): BENCH_RUNS (7), BENCH_RECORDS (200000, per write
# run), BENCH_PAYLOADS (8,64,512), BENCH_SIZES_KB (64,256,1024,4096,16384,65536,
# per-CPU buffer sizes of the snapshot test), BENCH_PIPE_RECORDS (16384);
# memmap=1M$0x30000000 for the persistence row (scripts/bench.sh gives it).
. ./lib.sh
st_begin bench

RUNS=${BENCH_RUNS:-7}
RECORDS=${BENCH_RECORDS:-200000}
PAYLOADS_CSV=${BENCH_PAYLOADS:-8,64,512}
PAYLOADS=$(echo "$PAYLOADS_CSV" | tr , ' ')
SIZES=$(echo "${BENCH_SIZES_KB:-64,256,1024,4096,16384,65536}" | tr , ' ')
PIPE_N=${BENCH_PIPE_RECORDS:-16384}
# The per-CPU size of the write, read and space tests' buffers (buf_kb=).
MEM_KB=1024
B=$ST_MOD/snaptrace_bench.ko
D=$ST_DIR
T=/sys/kernel/tracing
NOW=/sys/module/snaptrace_bench/parameters/now_ns

[ -e $T/trace ] || mount -t tracefs nodev $T

# mem TAG: MemFree, Slab and VmallocUsed (KiB) as a BENCH line, and
# "free": the free pages of /proc/zoneinfo with those on the per-CPU lists,
# which MemFree leaves out (tens of MiB after a large free); 4 KiB pages
# (x86's, and those of Debian's arm64 kernel).
mem() {
	awk -v tag="$1" -v kb=4 '
		FILENAME == "/proc/meminfo" && /^MemFree:/ { f = $2 }
		FILENAME == "/proc/meminfo" && /^Slab:/ { s = $2 }
		FILENAME == "/proc/meminfo" && /^VmallocUsed:/ { v = $2 }
		FILENAME == "/proc/zoneinfo" && /^ +pages free/ { z += $3 }
		FILENAME == "/proc/zoneinfo" && /^ +count:/ { z += $2 }
		END { printf "BENCH {\"t\":\"meminfo\",\"tag\":\"%s\",\"memfree\":%d,\"free\":%d,\"slab\":%d,\"vmalloc\":%d}\n", tag, f, z * kb, s, v }
	' /proc/meminfo /proc/zoneinfo
}

# bench NAME ARGS...: load the bench module with ARGS (it runs its test
# while loading), then unload it.
bench() {
	local name=$1
	shift
	st_check "$name" insmod "$B" "$@"
	rmmod snaptrace_bench 2>/dev/null
}

echo "BENCH {\"t\":\"guest\",\"runs\":$RUNS,\"records\":$RECORDS,\"pipe_records\":$PIPE_N,\"mem_total_kib\":$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)}"

# --- 3. memory of the module: the spare costs nothing until allocated ------
mem boot
st_check "insmod snaptrace.ko buffer_size_kb=16384" \
	insmod $ST_MOD/snaptrace.ko buffer_size_kb=16384
mem loaded
st_check "allocate the spare (snapshot_alloc)" sh -c "echo 1 > $D/snapshot_alloc"
mem spare
st_check "free the spare (echo 0 > snapshot)" sh -c "echo 0 > $D/snapshot"
mem spare_freed

# --- 6. what each buffer costs, from each module's own accounting ----------
# memline IMPL DIR SIZE_KB: resize DIR's buffer to SIZE_KB per CPU and print
# SIZE_KB (want_kb) with its buffer_size_kb (ftrace's reads back rounded up
# to whole sub-buffers) and buffer_total_size_kb as read back; fails,
# printing nothing, when the resize is refused.
memline() {
	echo "$3" 2>/dev/null >"$2/buffer_size_kb" || return 1
	echo "BENCH {\"t\":\"mem\",\"impl\":\"$1\",\"want_kb\":$3,\"size_kb\":$(cat "$2/buffer_size_kb"),\"total_kb\":$(cat "$2/buffer_total_size_kb")}"
}
for s in $MEM_KB $SIZES; do
	memline ours $D "$s"
	st_result $? "our buffer_total_size_kb at $s KiB per CPU"
done
st_check "shrink our buffer to 4096 KiB" sh -c "echo 4096 > $D/buffer_size_kb"

bench "bench: clock" test=info

# --- 1. write cost, per payload size, every context -------------------------
for p in $PAYLOADS; do
	bench "bench: write, $p-byte payload" test=write payloads="$p" runs="$RUNS" \
		records="$RECORDS"
done

# --- 4a. consuming read in kernel; 5. space per record -------------------------
bench "bench: consuming read in kernel" test=read \
	payloads="$PAYLOADS_CSV" runs="$RUNS"
bench "bench: space per record" test=space payloads="$PAYLOADS_CSV"

# --- 2. snapshot latency and 3. lazy allocation, per buffer size ------------
yes 'snaptrace-bench: 63 bytes of text, newline included, for trace_marker' |
	cut -c1-63 | head -n "$PIPE_N" >/tmp/lines
# "7 (expanded: 1408)" until the global buffer is first used.
ft_orig=$(cat $T/buffer_size_kb)
case "$ft_orig" in
*expanded:*)
	ft_orig=${ft_orig##*expanded: }
	ft_orig=${ft_orig%)}
	;;
esac
memline ftrace $T $MEM_KB
st_result $? "ftrace's buffer_total_size_kb at $MEM_KB KiB per CPU"
for s in $SIZES; do
	echo 0 >$T/snapshot
	if memline ftrace $T "$s"; then
		ft=1
		dd if=/tmp/lines of=$T/trace_marker bs=64 count=1000 2>/dev/null
	else
		ft=0
		echo "BENCH {\"t\":\"snap\",\"impl\":\"ftrace\",\"size_kb\":$s,\"skip\":\"buffer_size_kb refused\"}"
	fi
	r=0
	while [ $r -lt "$RUNS" ]; do
		bench "bench: snapshot, $s KiB per CPU, run $r" test=snap \
			size_kb="$s" ft_kb="$s" ftrace=$ft run_id=$r
		echo 0 >$T/snapshot
		r=$((r + 1))
	done
done
echo 0 >$T/snapshot
st_check "global trace buffer back to $ft_orig KiB" sh -c "echo $ft_orig > $T/buffer_size_kb"

# --- 4b. trace_pipe from user space ------------------------------------------
# Same volume into both: PIPE_N writes of 64 bytes (63 characters and a
# newline) to trace_marker from CPU 0, then recording off, then one read of
# trace_pipe to EOF from CPU 0, timed with the module's local_clock().
st_check "insmod snaptrace_bench.ko test=clock" insmod "$B" test=clock
st_check "both buffers at 4096 KiB per CPU" sh -c \
	"echo 4096 > $D/buffer_size_kb && echo 4096 > $T/buffer_size_kb"

# pipe IMPL DIR RUN
pipe() {
	local impl=$1 dir=$2 run=$3 t0 t1
	: >"$dir/trace"
	echo 1 >"$dir/tracing_on"
	taskset 1 dd if=/tmp/lines of="$dir/trace_marker" bs=64 count="$PIPE_N" 2>/dev/null
	echo 0 >"$dir/tracing_on"
	t0=$(cat $NOW)
	# shellcheck disable=SC2046 # two numbers: lines, bytes
	set -- $(taskset 1 wc -lc <"$dir/trace_pipe")
	t1=$(cat $NOW)
	echo 1 >"$dir/tracing_on"
	echo "BENCH {\"t\":\"pipe\",\"impl\":\"$impl\",\"run\":$run,\"n\":$PIPE_N,\"lines\":$1,\"bytes\":$2,\"ns\":$((t1 - t0))}"
}
if [ -r $NOW ]; then
	r=0
	while [ $r -lt "$RUNS" ]; do
		if [ $((r % 2)) -eq 0 ]; then
			pipe ours $D $r
			pipe ftrace $T $r
		else
			pipe ftrace $T $r
			pipe ours $D $r
		fi
		r=$((r + 1))
	done
	st_check "rmmod snaptrace_bench" rmmod snaptrace_bench
else
	st_skip "trace_pipe read" "no $NOW"
fi
echo "$ft_orig" >$T/buffer_size_kb
: >$T/trace

st_check "rmmod snaptrace" rmmod snaptrace

# --- 7. what persistence costs a write ---------------------------------------
# Ours only, into the default buffer of a snaptrace.ko loaded without, then
# with, the persistent capture armed on the region scripts/bench.sh keeps
# with memmap= (Documentation/persist.rst): the same loop, the same size.
PERSIST="persist_address=0x30000000 persist_size=1048576"
if grep -qF 'memmap=1M$0x30000000' /proc/cmdline; then
	for tag in plain armed; do
		args=buffer_size_kb=$MEM_KB
		[ $tag = armed ] && args="$args $PERSIST"
		# shellcheck disable=SC2086 # the parameters are words
		st_check "insmod snaptrace.ko $args" insmod $ST_MOD/snaptrace.ko $args
		bench "bench: write into the default buffer, persistence $tag" test=write \
			buffer=default tag=$tag payloads="$PAYLOADS_CSV" contexts=task,irqoff \
			runs="$RUNS" records="$RECORDS"
		st_check "rmmod snaptrace" rmmod snaptrace
	done
else
	st_skip "write with persistence armed" "no memmap=1M\$0x30000000 on the command line"
fi
echo "BENCH {\"t\":\"guest_done\"}"
st_end
