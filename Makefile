# SPDX-License-Identifier: GPL-2.0
#
# What a maintainer does, by name. The kernel build itself is in Kbuild.
#
#   make [KDIR=<kernel build dir>]  build snaptrace.ko for the running kernel
#        [SNAPTRACE_ALIGN8=1]       in the ring's 8-byte record layout, which
#                                   CONFIG_HAVE_64BIT_ALIGNED_ACCESS kernels
#                                   get anyway (a test switch: Kbuild)
#   make deps                       install the Debian packages we need
#   make demo                       boot the stock Debian kernel in QEMU, load
#                                   the module, show its debugfs files
#   make demo-remote                the same beside a real ARM remote core
#                                   (qemu-system-arm) sharing memory over ivshmem
#   make shell                      the same guest, the module loaded, with a root
#                                   shell on this terminal in its debugfs
#                                   directory; exit or Ctrl-D powers it off
#        [MODULES=dir]              dir/*.ko in the guest's /modules too
#   make check                      the whole test suite (KUnit + scenarios)
#   make check-quick                the debug kernel only (KUnit + its scenarios)
#   make firmware                   build the example remote firmware (fw/)
#   make static-check               checkpatch --strict, sparse, kernel-doc,
#                                   the docs' map of src/
#   make fuzz [FUZZ_SECONDS=600]    libFuzzer on the firmware parsers
#   make explore [EXPLORE_RUNS=4000000] [EXPLORE_SRC=dir]
#                                   soak of the ring's interleaving explorer
#                                   (tests/explore/: about 30 minutes)
#   make explore-mutants            each guard of the ring removed in turn:
#                                   the explorer must find every one
#   make bench [BENCH_ACCEL=kvm|icount] snaptrace vs ftrace in one QEMU boot (out/bench/)
#                                   (BENCH_ARCH=arm64: Debian 12's arm64 kernel)
#   make bench-here                 the same on the running kernel, as root (dev box)
#   make install                    snaptrace.ko, its Module.symvers and headers
#                                   for KDIR's kernel (no DKMS; see below)
#   make kunit-kernel               build (or find cached) the KUnit kernel
#   make clean

KDIR ?= /lib/modules/$(shell uname -r)/build
PWD := $(CURDIR)

all: module

module:
	@test -f $(KDIR)/Makefile || { \
		echo "no kernel build tree at $(KDIR)"; \
		echo "install the headers of the kernel to build for (Debian:" \
		     "apt-get install linux-headers-$$(uname -r)), or name one:" \
		     "make KDIR=/usr/src/linux-headers-<version>"; \
		exit 1; }
	$(MAKE) -C $(KDIR) M=$(PWD) W=1 modules

# Build products of `make module` and of examples/ (Documentation/api.rst),
# and out/ (logs and results of check/demo).
clean:
	rm -rf *.o *.ko *.mod *.mod.c .*.cmd .*.d .module-common.o \
		src/*.o src/.*.cmd src/.*.d tests/*.o tests/.*.cmd tests/.*.d \
		modules.order Module.symvers out
	rm -rf examples/*.o examples/*.ko examples/*.mod examples/*.mod.c \
		examples/.*.cmd examples/.*.d examples/.module-common.o \
		examples/modules.order examples/Module.symvers

deps:
	scripts/deps.sh

demo:
	scripts/demo.sh

demo-remote:
	scripts/remote-demo.sh

shell:
	scripts/shell.sh $(if $(MODULES),--more-modules $(MODULES))

shell-persist:
	scripts/shell.sh --persist $(if $(MODULES),--more-modules $(MODULES))

check:
	scripts/check.sh

check-quick:
	SNAPTRACE_QUICK=1 scripts/check.sh

kunit-kernel: deps
	tests/qemu/kernel-kunit.sh

firmware: deps
	scripts/firmware.sh out/firmware

static-check: deps
	scripts/static-checks.sh all

bench:
	scripts/bench.sh

bench-here:
	scripts/bench.sh --here

FUZZ_SECONDS ?= 600
fuzz: deps
	scripts/fuzz.sh $(FUZZ_SECONDS)

explore:
	tests/explore/run.sh --soak

explore-mutants:
	tests/explore/mutants.sh

# make install: snaptrace.ko and what a module built against it needs,
# where a kernel developer looks (INSTALL_MOD_PATH and INSTALL_HDR_PATH
# stage it elsewhere, as the kernel's modules_install and headers_install):
#   $(INSTALL_MOD_PATH)/lib/modules/<kernel>/updates/snaptrace.ko
#   $(INSTALL_MOD_PATH)/lib/modules/<kernel>/updates/snaptrace.symvers
#       (Module.symvers, for the module's KBUILD_EXTRA_SYMBOLS)
#   $(INSTALL_HDR_PATH)/include/snaptrace/*.h, INSTALL_HDR_PATH being
#       $(INSTALL_MOD_PATH)/usr/src/snaptrace-<version> (where DKMS keeps the
#       sources too), for the module's -I
# updates/ on every kernel (Kbuild's default there on 6.12, extra/ on 6.1).
# Installing into the system (no INSTALL_MOD_PATH) runs depmod for
# modprobe: modules_install skips it without the kernel's System.map,
# which Debian's headers packages lack.
SNAPTRACE_VERSION := $(shell sed -n 's/^\#define SNAPTRACE_VERSION "\(.*\)"$$/\1/p' \
	include/snaptrace/snaptrace.h)
INSTALL_MOD_DIR ?= updates
INSTALL_HDR_PATH ?= $(INSTALL_MOD_PATH)/usr/src/snaptrace-$(SNAPTRACE_VERSION)
# The release the module's vermagic names (Debian's 6.1 headers override
# include/config/kernel.release's in .kernelvariables).
krelease = $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"$$/\1/p' \
	$(KDIR)/include/generated/utsrelease.h)

install: module
	$(MAKE) -C $(KDIR) M=$(PWD) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) modules_install
	install -D -m 644 Module.symvers \
		"$(INSTALL_MOD_PATH)/lib/modules/$(krelease)/$(INSTALL_MOD_DIR)/snaptrace.symvers"
	install -d "$(INSTALL_HDR_PATH)/include/snaptrace"
	install -m 644 include/snaptrace/*.h "$(INSTALL_HDR_PATH)/include/snaptrace/"
	$(if $(INSTALL_MOD_PATH),,depmod -a $(krelease))

.PHONY: all module clean deps demo demo-remote shell shell-persist check check-quick firmware static-check fuzz explore explore-mutants bench bench-here install kunit-kernel
