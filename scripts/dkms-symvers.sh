#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# DKMS hooks of dkms.conf: keep snaptrace.ko's Module.symvers, which a
# module built against snaptrace needs (KBUILD_EXTRA_SYMBOLS), wherever
# DKMS keeps snaptrace.ko itself. DKMS runs "make clean" after a build, so
# the file is saved before that.
#
#   build MODDIR        POST_BUILD, in DKMS's build directory: copy
#                       Module.symvers into MODDIR, the DKMS tree's copy of
#                       the built module (<dkms tree>/snaptrace/<version>/
#                       <kernel>/<arch>/module/)
#   install MODDIR DEST POST_INSTALL: copy it from MODDIR beside the
#                       installed snaptrace.ko, as DEST/snaptrace.symvers
#                       (DEST: /lib/modules/<kernel>/updates/dkms)
#   remove DEST         POST_REMOVE: delete DEST/snaptrace.symvers
set -eu

case ${1:-} in
build)
	install -D -m 644 Module.symvers "$2/Module.symvers" ;;
install)
	install -D -m 644 "$2/Module.symvers" "$3/snaptrace.symvers" ;;
remove)
	rm -f "$2/snaptrace.symvers"
	# DKMS removes the directory when snaptrace.ko was its last file.
	rmdir "$2" 2>/dev/null || true ;;
*)
	echo "usage: dkms-symvers.sh build MODDIR | install MODDIR DEST | remove DEST" >&2
	exit 1 ;;
esac
