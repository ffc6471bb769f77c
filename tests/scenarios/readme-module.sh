#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# readme-module: the first module of one's own (README.md's "Your own
# module", Documentation/api.rst's "Building a module against the API"),
# in the guest: snaptrace.ko as `make install` installed it and mymod.ko
# built from the page's Kbuild and mymod.c against the installed headers
# and snaptrace.symvers (tests/drivers/readme-module.sh builds both). The page's
# commands are run as it writes them, without sudo; tests/drivers/readme-module.sh
# checks that the page has these two lines.
. ./lib.sh
st_begin readme-module

README_LOAD='modprobe snaptrace && insmod mymod.ko'
README_CAT='cat /sys/kernel/debug/snaptrace/instances/mymod/snapshot'

# Where `make install` put snaptrace.ko, with depmod's index for modprobe
# (the initramfs has /modules only).
LIB=/lib/modules/$(uname -r)
st_check "snaptrace.ko installed into updates/, depmod" sh -c \
	"mkdir -p $LIB/updates && cp $ST_MOD/snaptrace.ko $LIB/updates/ && depmod"
cd $ST_MOD || exit 1
st_check "$README_LOAD" sh -c "$README_LOAD"
st_check "mymod holds snaptrace" test -e /sys/module/snaptrace/holders/mymod
sh -c "$README_CAT" >/tmp/readme-snapshot 2>&1
cat /tmp/readme-snapshot
st_expect_eq "$README_CAT: one record" "1" "$(grep -vc '^#' /tmp/readme-snapshot)"
st_check "$README_CAT: mymod: hello" \
	grep -Eqx '\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: mymod: hello' /tmp/readme-snapshot
st_check "rmmod mymod" rmmod mymod
st_check_fails "its instance is gone with its last reference" \
	test -e $ST_DIR/instances/mymod
st_check "rmmod snaptrace" rmmod snaptrace
st_check_fails "module is gone" test -e /sys/module/snaptrace
rm -rf "$LIB/updates"

st_end
