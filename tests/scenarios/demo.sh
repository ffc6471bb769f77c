#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# demo: what `make demo` shows: load the module on the stock Debian kernel and
# look at its debugfs files, as a user at a root shell would.
. ./lib.sh
st_begin demo

echo '$ insmod snaptrace.ko'
st_check "insmod snaptrace.ko" insmod $ST_MOD/snaptrace.ko
echo '$ ls -l /sys/kernel/debug/snaptrace/'
ls -l $ST_DIR/
for f in $ST_DIR/*; do
	[ -f "$f" ] || continue
	echo "\$ cat $f"
	cat "$f"
done
st_check "version readable" cat $ST_DIR/version
echo '$ rmmod snaptrace'
st_check "rmmod snaptrace" rmmod snaptrace

st_end
