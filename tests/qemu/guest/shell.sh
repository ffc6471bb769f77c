#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The guest side of make shell (scripts/shell.sh), run by /init as its
# scenario: load the module and give the console a root shell in
# snaptrace's debugfs directory. Leaving the shell returns to /init, which
# powers the guest off (reboot -f, and QEMU runs with -no-reboot).
insmod /modules/snaptrace.ko || exit 1
cd /sys/kernel/debug/snaptrace || exit 1
echo "here: snaptrace $(cat version)'s debugfs files (Documentation/debugfs.rst); try README.md's session from 'cat version'"
echo "leave: exit or Ctrl-D powers the guest off"
# A shell of its own session with the serial port as its controlling
# terminal (cttyhack), for job control and Ctrl-C: /dev/console can be
# neither.
PS1='\w # ' setsid cttyhack sh
