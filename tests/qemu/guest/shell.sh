#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest side of make shell (scripts/shell.sh), run by /init as its
# scenario: load the module and give the console a root shell in
# snaptrace's debugfs directory. Leaving the shell returns to /init, which
# powers the guest off (reboot -f, and QEMU runs with -no-reboot; under
# make shell-persist the host stops QEMU there).
#
# The module's parameters on the kernel's command line (snaptrace.NAME=
# VALUE, as modprobe would take them) are given to insmod: make
# shell-persist gives the persistent region's there, so that every boot,
# the one after a panic too, loads the module as a user's would.
params=$(tr ' ' '\n' </proc/cmdline | sed -n 's/^snaptrace\.//p' | tr '\n' ' ')
params=${params% }
# shellcheck disable=SC2086 # one word a parameter
insmod /modules/snaptrace.ko $params || exit 1
cd /sys/kernel/debug/snaptrace || exit 1
echo "here: snaptrace $(cat version)'s debugfs files (Documentation/debugfs.rst); try README.md's session from 'cat version'"
# The simulated remote, ready to start with the example image when the
# host staged it (make demo, make check or make firmware: shell.sh passes
# out/firmware); else the banner says how to get it.
fw=snaptrace/example64.elf r0=remoteproc/remoteproc0
if [ "$(cat $r0/state 2>/dev/null)" = offline ]; then
	if [ -f /lib/firmware/$fw ] && echo $fw >$r0/firmware; then
		echo "remote: remoteproc0's firmware is $fw: echo start > $r0/state"
	else
		echo "remote: no /lib/firmware/$fw here: run make firmware on the host, then make shell again"
	fi
fi
case " $params " in
*" persist_address="*)
	echo "persist: insmod snaptrace.ko $params said:"
	dmesg | sed -n 's/^\[[ .0-9]*\] snaptrace: persist: /    /p'
	if [ -d last_boot ]; then
		echo "persist: the previous boot's capture: cat last_boot/info; cat last_boot/trace; echo 0 > last_boot/release"
	fi
	echo "persist: crash to capture: echo hello > trace_marker; echo c > /proc/sysrq-trigger (the guest reboots into this shell)" ;;
esac
# The modules of make shell MODULES=dir, if any: all but ours.
mine=""
for m in /modules/*.ko; do
	case ${m#/modules/} in snaptrace*) ;; *) mine="$mine ${m#/modules/}" ;; esac
done
[ -z "$mine" ] || echo "modules: yours in /modules:$mine (insmod /modules/NAME.ko)"
echo "leave: exit or Ctrl-D powers the guest off"
# A shell of its own session with the serial port as its controlling
# terminal (cttyhack), for job control and Ctrl-C: /dev/console can be
# neither.
PS1='\w # ' setsid cttyhack sh
