#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# tracefs: the ring buffer's debugfs files, used as a developer at a root
# shell uses ftrace's: echo, cat, dd bs=1, a blocked trace_pipe reader,
# snapshot cycles, resize under load, rmmod with files open.
. ./lib.sh
st_begin tracefs

D=$ST_DIR
NCPU=$(grep -c ^processor /proc/cpuinfo)
# entries-in-buffer/entries-written of a dump file
hdr() { grep -o 'entries-in-buffer/entries-written: [0-9]*/[0-9]*' "$1" | cut -d' ' -f2; }
# a record line, as the trace files print it
LINE_RE='^\[[0-9][0-9][0-9]\] +[0-9]+\.[0-9]{6}: '
# write FILE VALUE: one write(2) of VALUE (no newline) to FILE
wr() { printf '%s' "$2" >"$1"; }

st_check "insmod snaptrace.ko" insmod $ST_MOD/snaptrace.ko
for f in trace trace_pipe snapshot snapshot_alloc buffer_size_kb \
	buffer_total_size_kb tracing_on trace_marker options/overwrite \
	per_cpu/cpu0/trace per_cpu/cpu0/trace_pipe per_cpu/cpu0/snapshot \
	per_cpu/cpu0/stats; do
	st_check "file $f exists" test -f $D/$f
done
for fm in trace:-rw------- trace_pipe:-r-------- trace_marker:--w------- \
	snapshot:-rw------- buffer_size_kb:-rw------- tracing_on:-rw------- \
	buffer_total_size_kb:-r-------- per_cpu/cpu0/stats:-r-------- \
	per_cpu/cpu0/trace:-r--------; do
	st_expect_eq "${fm%%:*} is ${fm#*:}" "${fm#*:}" \
		"$(ls -l $D/${fm%%:*} | cut -c1-10)"
done

# --- trace and trace_marker
st_expect_eq "empty trace header" "0/0" "$(cat $D/trace >/tmp/t; hdr /tmp/t)"
echo hello >$D/trace_marker
echo world >$D/trace_marker
cat $D/trace >/tmp/t
st_expect_eq "two markers counted in the header" "2/2" "$(hdr /tmp/t)"
st_expect_eq "markers shown in order, as text" "hello world" \
	"$(grep -E "$LINE_RE" /tmp/t | sed 's/.*: //' | tr '\n' ' ' | sed 's/ $//')"
st_check "header gives the number of CPUs" grep -q "#P:$NCPU" /tmp/t
dd if=$D/trace of=/tmp/t1 bs=1 2>/dev/null
st_check "dd bs=1 reads the same as cat" cmp /tmp/t /tmp/t1
dd if=$D/trace of=/tmp/t7 bs=7 2>/dev/null
st_check "dd bs=7 reads the same as cat" cmp /tmp/t /tmp/t7
printf 'bin\001\002' >$D/trace_marker
st_check "binary payload shown as hex" grep -q 'hex: 62 69 6e 01 02$' $D/trace
st_expect_eq "binary marker is one record" "3/3" "$(cat $D/trace >/tmp/t; hdr /tmp/t)"
head -c 3000 /dev/zero | tr '\0' 'x' >/tmp/long
dd if=/tmp/long of=$D/trace_marker bs=3000 count=1 2>/tmp/dd.err
st_check "a 3000-byte marker is cut to 2048 bytes" \
	grep -qE "$LINE_RE"'x{2048}$' $D/trace
: >$D/trace
st_expect_eq "writing trace with O_TRUNC empties it" "0/0" "$(cat $D/trace >/tmp/t; hdr /tmp/t)"

# --- per_cpu
taskset 1 sh -c "echo on-cpu0 >$D/trace_marker" 2>/dev/null ||
	echo on-cpu0 >$D/trace_marker
st_check "per_cpu/cpu0/trace shows cpu0's record" grep -q 'on-cpu0' $D/per_cpu/cpu0/trace
st_check "per_cpu/cpu0/stats has ftrace's fields" sh -c \
	"grep -q '^entries: 1' $D/per_cpu/cpu0/stats && grep -q '^overrun: 0' $D/per_cpu/cpu0/stats && grep -q '^dropped events: 0' $D/per_cpu/cpu0/stats && grep -q '^oldest event ts:' $D/per_cpu/cpu0/stats && grep -q '^now ts:' $D/per_cpu/cpu0/stats && grep -q '^snapshot misses: 0' $D/per_cpu/cpu0/stats"

# --- trace_pipe
: >$D/trace
cat $D/trace_pipe >/tmp/pipe &
PIPE=$!
sleep 1
st_check "trace_pipe blocks while empty" kill -0 $PIPE
echo wake-up >$D/trace_marker
sleep 1
st_check "a marker wakes a blocked trace_pipe reader" grep -q 'wake-up' /tmp/pipe
kill $PIPE
wait $PIPE 2>/dev/null
st_expect_eq "trace_pipe consumed the record" "0/1" "$(cat $D/trace >/tmp/t; hdr /tmp/t)"
echo a >$D/trace_marker
echo b >$D/trace_marker
echo c >$D/trace_marker
echo 0 >$D/tracing_on
# tracing off after a read: trace_pipe gives what is left, then EOF.
dd if=$D/trace_pipe bs=1 of=/tmp/pipe1 2>/dev/null
st_expect_eq "dd bs=1 of trace_pipe reads all, then EOF once tracing is off" \
	"a b c" "$(sed 's/.*: //' /tmp/pipe1 | tr '\n' ' ' | sed 's/ $//')"
echo 1 >$D/tracing_on

# --- tracing_on, options/overwrite
echo 0 >$D/tracing_on
st_check_fails "trace_marker refused while tracing is off" sh -c "echo off >$D/trace_marker"
st_check_fails "nothing recorded while off" grep -q ': off$' $D/trace
st_expect_eq "tracing_on reads 0" "0" "$(cat $D/tracing_on)"
echo 1 >$D/tracing_on
st_expect_eq "tracing_on reads 1" "1" "$(cat $D/tracing_on)"

echo 8 >$D/buffer_size_kb
echo 0 >$D/options/overwrite
# 100 records of 128 bytes on CPU 0: half as many again as its 8 KiB
# holds (64), through one open file, each echo one write, one record.
PADDING=$(head -c 100 /dev/zero | tr '\0' '.')
fill() { # fill WORD: 100 records "WORD i PADDING", written on CPU 0
	taskset 1 sh -c "exec 4>$D/trace_marker; i=0; while [ \$i -lt 100 ]; do
		echo \"$1 \$i $PADDING\" >&4 2>/dev/null; i=\$((i + 1)); done"
}
fill fill
st_check "stop-when-full: dropped events counted" sh -c \
	"cat $D/per_cpu/cpu*/stats | grep '^dropped events:' | grep -qv ': 0$'"
st_check "stop-when-full: the first record is kept" grep -q ": fill 0 $PADDING\$" $D/trace
echo 1 >$D/options/overwrite
fill wrap
st_check "overwrite: overrun counted" sh -c \
	"cat $D/per_cpu/cpu*/stats | grep '^overrun:' | grep -qv ': 0$'"
st_check "overwrite: the newest record is kept" grep -q ": wrap 99 $PADDING\$" $D/trace
st_check_fails "overwrite: the oldest record is gone" grep -q ": fill 0 $PADDING\$" $D/trace

# --- buffer sizes
echo 64 >$D/buffer_size_kb
st_expect_eq "buffer_size_kb reads back 64" "64" "$(cat $D/buffer_size_kb)"
# Each CPU's 64 KiB and its time anchors (256 bytes), in KiB rounded up.
st_expect_eq "buffer_total_size_kb is 64.25 x CPUs, rounded up" \
	"$(((65536 + 256) * NCPU / 1024 + ((65536 + 256) * NCPU % 1024 > 0)))" \
	"$(cat $D/buffer_total_size_kb)"
echo 20 >$D/buffer_size_kb
st_expect_eq "buffer_size_kb rounds up to a power of two of pages" "32" \
	"$(cat $D/buffer_size_kb)"
echo after-resize >$D/trace_marker
st_check "recording works after a resize" grep -q after-resize $D/trace

# --- bad input: refused, nothing changes
bad() { # bad FILE VALUE: the write fails and FILE reads the same as before
	local before
	before=$(cat "$D/$1" 2>/dev/null)
	wr "$D/$1" "$2" 2>/dev/null
	[ $? -ne 0 ] && [ "$(cat "$D/$1" 2>/dev/null)" = "$before" ]
}
for v in " " abc -1 0 12abc 99999999999999999999 1000000000 "1 2"; do
	st_check "buffer_size_kb refuses '$v'" bad buffer_size_kb "$v"
done
for v in 2 -1 x " " 10; do
	st_check "tracing_on refuses '$v'" bad tracing_on "$v"
	st_check "options/overwrite refuses '$v'" bad options/overwrite "$v"
done
for v in 3 -1 x " " 11; do
	st_check "snapshot refuses '$v'" bad snapshot "$v"
done
for v in 0 2 x " "; do
	st_check "snapshot_alloc refuses '$v'" bad snapshot_alloc "$v"
done
st_check_fails "buffer_size_kb refuses a write at an offset" \
	sh -c "printf 128 | dd of=$D/buffer_size_kb bs=1 seek=1 conv=notrunc 2>/dev/null"
st_expect_eq "still 32 after the bad writes" "32" "$(cat $D/buffer_size_kb)"
st_check_fails "trace_pipe is not writable" sh -c "echo 1 >$D/trace_pipe"

# --- error_log: each bad write above was logged, with a caret
st_expect_eq "error_log is -rw-------" "-rw-------" "$(ls -l $D/error_log | cut -c1-10)"
st_expect_eq "error_log kept the last 16 errors" "16" "$(grep -c ': error: ' $D/error_log)"
echo >$D/error_log
st_expect_eq "echo > error_log empties it" "" "$(cat $D/error_log)"
wr $D/buffer_size_kb 12x4 2>/dev/null
cat $D/error_log >/tmp/el
st_check "error_log: time, file and message" grep -qE \
	'^\[ *[0-9]+\.[0-9]{6}\] snaptrace/buffer_size_kb: error: not a decimal number$' /tmp/el
st_expect_eq "error_log: the command" "  Command: 12x4" "$(sed -n 2p /tmp/el)"
st_expect_eq "error_log: the caret under the bad part" "             ^" "$(sed -n 3p /tmp/el)"
st_expect_eq "error_log: one error, three lines" "3" "$(wc -l </tmp/el)"
wr $D/snapshot 3 2>/dev/null
st_check "error_log: a wrong snapshot word" grep -q \
	'snaptrace/snapshot: error: unknown command: want 0 (free), 1 (snapshot) or 2 (clear)$' $D/error_log
st_expect_eq "error_log: newest last" "  Command: 3" "$(sed -n 5p $D/error_log)"
st_expect_eq "error_log: caret at its first byte" "           ^" "$(sed -n 6p $D/error_log)"
wr $D/tracing_on "1 1" 2>/dev/null
st_expect_eq "error_log: tracing_on's caret after the number" "            ^" \
	"$(sed -n 9p $D/error_log)"
i=0
while [ $i -lt 20 ]; do wr $D/options/overwrite "x$i" 2>/dev/null; i=$((i + 1)); done
st_expect_eq "error_log is bounded at 16" "16" "$(grep -c ': error: ' $D/error_log)"
st_check "error_log dropped the oldest" sh -c \
	"! grep -q 'Command: x3\$' $D/error_log && grep -q 'Command: x4\$' $D/error_log && tail -2 $D/error_log | grep -q 'Command: x19\$'"
echo >$D/error_log
st_expect_eq "error_log cleared again" "0" "$(wc -c <$D/error_log)"

# --- snapshot
st_check "snapshot says it is not allocated" grep -q 'Snapshot is not allocated' $D/snapshot
st_expect_eq "snapshot_alloc reads 0" "0" "$(cat $D/snapshot_alloc)"
echo 1 >$D/snapshot_alloc
st_expect_eq "echo 1 > snapshot_alloc allocates" "1" "$(cat $D/snapshot_alloc)"
st_expect_eq "allocating does not snapshot" "0/0" "$(cat $D/snapshot >/tmp/t; hdr /tmp/t)"
: >$D/trace
echo before >$D/trace_marker
echo 1 >$D/snapshot
echo after >$D/trace_marker
st_check "the snapshot holds what was recorded before" grep -q ': before$' $D/snapshot
st_check_fails "the snapshot does not hold what came after" grep -q ': after$' $D/snapshot
st_check "trace goes on in the other buffer" grep -q ': after$' $D/trace
st_check_fails "trace starts empty after the snapshot" grep -q ': before$' $D/trace
st_check "per_cpu snapshot readable" cat $D/per_cpu/cpu0/snapshot
echo 2 >$D/snapshot
st_expect_eq "echo 2 clears the snapshot" "0/0" "$(cat $D/snapshot >/tmp/t; hdr /tmp/t)"
st_expect_eq "clearing keeps it allocated" "1" "$(cat $D/snapshot_alloc)"
echo 0 >$D/snapshot
st_check "echo 0 frees it" grep -q 'Snapshot is not allocated' $D/snapshot
i=0
ok=0
while [ $i -lt 20 ]; do
	echo "cycle $i" >$D/trace_marker &&
		echo 1 >$D/snapshot && grep -q ": cycle $i\$" $D/snapshot &&
		echo 2 >$D/snapshot && echo 0 >$D/snapshot && ok=$((ok + 1))
	i=$((i + 1))
done
st_expect_eq "20 snapshot 1/2/0 cycles" "20" "$ok"

# --- under load: resize, and no torn line in cat
(i=0; while :; do echo "load $i" >$D/trace_marker 2>/dev/null; i=$((i + 1)); done) &
LOAD=$!
for kb in 16 64 8 128 32; do echo $kb >$D/buffer_size_kb; done
st_expect_eq "resize under load" "32" "$(cat $D/buffer_size_kb)"
i=0
torn=0
while [ $i -lt 20 ]; do
	cat $D/trace | grep -v '^#' | grep -cvE "$LINE_RE"'load [0-9]+$' >/tmp/n
	[ "$(cat /tmp/n)" = 0 ] || torn=$((torn + 1))
	i=$((i + 1))
done
kill $LOAD
wait $LOAD 2>/dev/null
st_expect_eq "cat under full-rate writes shows no torn line" "0" "$torn"

# --- rmmod with files open
exec 3<$D/trace
st_check_fails "rmmod refused while a file is open" rmmod snaptrace
st_check "module still works" grep -q '^#' $D/trace
exec 3<&-
cat $D/trace_pipe >/dev/null &
PIPE=$!
sleep 1
st_check_fails "rmmod refused while a reader is blocked" rmmod snaptrace
kill $PIPE
wait $PIPE 2>/dev/null
st_check "rmmod once they are closed" rmmod snaptrace
st_check_fails "nothing left in debugfs" test -e $D

st_check "insmod with buffer_size_kb=8 overwrite=0" \
	insmod $ST_MOD/snaptrace.ko buffer_size_kb=8 overwrite=0
st_expect_eq "module parameters applied" "8 0" \
	"$(cat $D/buffer_size_kb) $(cat $D/options/overwrite)"
st_check "rmmod" rmmod snaptrace

# --- instances/NAME/: the same files, for a buffer of its own
st_check "insmod with instances=foo,bar" \
	insmod $ST_MOD/snaptrace.ko instances=foo,bar buffer_size_kb=64
st_expect_eq "instances/ lists them" "bar foo" "$(ls $D/instances | tr '\n' ' ' | sed 's/ $//')"
for f in trace trace_pipe snapshot snapshot_alloc buffer_size_kb \
	buffer_total_size_kb tracing_on trace_marker options/overwrite \
	per_cpu/cpu0/trace per_cpu/cpu0/trace_pipe per_cpu/cpu0/snapshot \
	per_cpu/cpu0/stats; do
	st_check "file instances/foo/$f exists" test -f $D/instances/foo/$f
done
st_expect_eq "an instance has the module's buffer_size_kb" "64" \
	"$(cat $D/instances/foo/buffer_size_kb)"
echo in-foo >$D/instances/foo/trace_marker
st_check "instances/foo/trace shows its marker" grep -q ': in-foo$' $D/instances/foo/trace
st_expect_eq "counted in its header" "1/1" "$(cat $D/instances/foo/trace >/tmp/t; hdr /tmp/t)"
st_check_fails "the top-level trace does not" grep -q ': in-foo$' $D/trace
st_check_fails "nor does instances/bar/trace" grep -q ': in-foo$' $D/instances/bar/trace
echo 0 >$D/instances/foo/tracing_on
st_check_fails "instances/foo/tracing_on 0 refuses its markers" \
	sh -c "echo off >$D/instances/foo/trace_marker"
st_check "... and not the top level's" sh -c "echo top-on >$D/trace_marker"
echo 1 >$D/instances/foo/tracing_on
echo 16 >$D/instances/foo/buffer_size_kb
st_expect_eq "instances/foo/buffer_size_kb resizes it only" "16 64" \
	"$(cat $D/instances/foo/buffer_size_kb) $(cat $D/buffer_size_kb)"
echo snap-foo >$D/instances/foo/trace_marker
echo 1 >$D/instances/foo/snapshot
st_check "instances/foo/snapshot takes its snapshot" grep -q ': snap-foo$' $D/instances/foo/snapshot
st_check "the top level has no snapshot" grep -q 'Snapshot is not allocated' $D/snapshot
echo >$D/error_log
wr $D/instances/foo/buffer_size_kb 8k 2>/dev/null
st_check "an instance's bad write is logged under its path" grep -q \
	'snaptrace/instances/foo/buffer_size_kb: error: not a decimal number$' $D/error_log
st_expect_eq "... with the caret under the bad part" "            ^" "$(sed -n 3p $D/error_log)"
exec 3<$D/instances/foo/trace_pipe
st_check_fails "rmmod refused while an instance's file is open" rmmod snaptrace
exec 3<&-
st_check "rmmod with instances" rmmod snaptrace
st_check_fails "nothing left in debugfs" test -e $D
st_check_fails "insmod refuses instances=a/b" insmod $ST_MOD/snaptrace.ko instances=a/b
st_check_fails "... and leaves nothing in debugfs" test -e $D
st_check_fails "insmod refuses instances=.hidden" insmod $ST_MOD/snaptrace.ko instances=.hidden
st_check_fails "insmod refuses buffer_size_kb=0" insmod $ST_MOD/snaptrace.ko buffer_size_kb=0
st_check_fails "... and leaves nothing in debugfs" test -e $D
st_check_fails "insmod refuses buffer_size_kb=999999999" \
	insmod $ST_MOD/snaptrace.ko buffer_size_kb=999999999
st_check_fails "... and leaves no module" test -e /sys/module/snaptrace

st_end
