# SPDX-License-Identifier: GPL-2.0
#
# make                build fchmodat2.ko for the running kernel
# make KDIR=<dir>     ... or against another kernel's headers build directory
# make install        install it into /lib/modules/<kernel>/updates and depmod
#                     (DESTDIR=<dir> stages it below <dir>)
# make dkms-src       copy the module's sources to /usr/src for DKMS
#                     (DESTDIR too; make uninstall-dkms-src removes them)
# make tests          build the test program and the benchmark (static)
# make check          test natively, then in a QEMU guest with the module
# make demo           show, in a QEMU guest, 452 before and after the module
# make check-full     every lane on every row, the debug kernel's included
# make check-debug    build the debug kernel (KASAN, lockdep, kmemleak; once,
#                     about ten minutes) and test on it alone; make
#                     check-full builds it too, make check never runs it
# make stress         the long stress lane: load/unload under load on parallel
#                     vCPUs, every kernel and preemption model
# make sweep          every kernel ABI and flavour of the apt mirror: build,
#                     boot, smoke test; the table goes into README.md
# make emulator-check show why the guests run on a patched QEMU 10.0
# make bench          measure the module's cost in a QEMU guest
# make prepare        what needs sudo, done first: make deps, the real
#                     system's image and the roots userspace/ is built
#                     in (Debian 11's; Debian 11's and 12's arm64 cross
#                     roots) (before build/no452 make check)
# make userspace      build libfchmodat2, the preload shim and fchmodat2ctl
# make install-userspace  install them (PREFIX=/usr/local, DESTDIR)

KVER ?= $(shell uname -r)
KDIR ?= /lib/modules/$(KVER)/build
B := build

# Pass CC (Debian 5.10 headers name gcc-10) and F2_EVAL on to Kbuild only
# when given.
KBUILD_VARS := $(if $(filter command line environment,$(origin CC)),CC=$(CC)) \
	       $(if $(F2_EVAL),F2_EVAL=$(F2_EVAL)) \
	       $(if $(F2_FAULT_INJECT),F2_FAULT_INJECT=$(F2_FAULT_INJECT))

TEST_CFLAGS := -O2 -Wall -Wextra -Werror -static -pthread
TESTS := $(B)/fchmodat2_test $(B)/fchmodat2_test32 $(B)/fchmodat2_testx32 \
	 $(B)/bench $(B)/unload_test \
	 $(B)/f2call $(B)/modload $(B)/stress $(B)/no452 $(B)/widenr \
	 $(B)/subsys_audit $(B)/subsys_audit32 $(B)/nrscan $(B)/nrscan32 \
	 $(B)/bpfhold $(B)/harness_test

.PHONY: all deps module tests tests-arm64 install dkms-src uninstall-dkms-src uninstall check check-full check-debug prepare demo bench stress sweep debian-system emulator-check clean \
	userspace install-userspace uninstall-userspace

all: module

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_VARS) modules

# DESTDIR=<dir> (or kbuild's own INSTALL_MOD_PATH=<dir>) installs below
# <dir> instead of / (staging, packaging).
INSTALL_MOD_PATH ?= $(DESTDIR)
export INSTALL_MOD_PATH
DEPMOD := depmod -a $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH))

install: module
	$(MAKE) -C $(KDIR) M=$(CURDIR) $(KBUILD_VARS) INSTALL_MOD_DIR=updates modules_install
	$(DEPMOD) $(KVER)

uninstall:
	rm -f $(INSTALL_MOD_PATH)/lib/modules/$(KVER)/updates/fchmodat2.ko*
	$(DEPMOD) $(KVER)

# The sources DKMS builds, as the Debian package ships them, into
# $(DESTDIR)/usr/src/fchmodat2-VERSION (nothing of build/ or caches).
VERSION := $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"$$/\1/p' dkms.conf)
DKMS_SRC := $(DESTDIR)/usr/src/fchmodat2-$(VERSION)

dkms-src:
	install -d $(DKMS_SRC)/module
	install -m 0644 dkms.conf Kbuild Makefile $(DKMS_SRC)/
	install -m 0644 $(wildcard module/*.c module/*.h module/*.S) $(DKMS_SRC)/module/

uninstall-dkms-src:
	rm -rf $(DKMS_SRC)

tests: $(TESTS)

# What the test programs include besides the C library.
TEST_HEADERS := tests/harness.h userspace/fchmodat2.h tests/nfs_loopback.h

# fchmodat2_test: its files by topic (tests/fchmodat2_test/main.c)
F2T_SRCS := $(wildcard tests/fchmodat2_test/*.c)
F2T_DEPS := $(F2T_SRCS) tests/fchmodat2_test/fchmodat2_test.h $(TEST_HEADERS)

# Without gcc-multilib (it conflicts with the arm cross compilers) the i386
# build finds the bi-arch <asm/...> headers in the host's multiarch dir.
M32_CFLAGS := -m32 -isystem /usr/include/$(shell gcc -print-multiarch)

$(B)/fchmodat2_test: $(F2T_DEPS)
	@mkdir -p $(B)
	gcc $(TEST_CFLAGS) -o $@ $(F2T_SRCS)

$(B)/fchmodat2_test32: $(F2T_DEPS)
	@mkdir -p $(B)
	gcc $(M32_CFLAGS) $(TEST_CFLAGS) -o $@ $(F2T_SRCS)

# x32 (libc6-dev-x32): the same bi-arch <asm/...> headers
$(B)/fchmodat2_testx32: $(F2T_DEPS)
	@mkdir -p $(B)
	gcc -mx32 -isystem /usr/include/$(shell gcc -print-multiarch) $(TEST_CFLAGS) -o $@ $(F2T_SRCS)

$(B)/%: tests/%.c $(TEST_HEADERS)
	@mkdir -p $(B)
	gcc $(TEST_CFLAGS) -o $@ $<

# The same programs for the arm64 guest: AArch64, and AArch32 for the
# 32-bit compat ABI.
ARM64_TESTS := $(addprefix $(B)/arm64/,fchmodat2_test fchmodat2_test32 f2call \
		unload_test modload bench stress stress32 subsys_audit \
		subsys_audit32 nrscan nrscan32 bpfhold)

tests-arm64: $(ARM64_TESTS)

$(B)/arm64/fchmodat2_test: $(F2T_DEPS)
	@mkdir -p $(B)/arm64
	aarch64-linux-gnu-gcc $(TEST_CFLAGS) -o $@ $(F2T_SRCS)

$(B)/arm64/fchmodat2_test32: $(F2T_DEPS)
	@mkdir -p $(B)/arm64
	arm-linux-gnueabihf-gcc $(TEST_CFLAGS) -o $@ $(F2T_SRCS)

# the stress lane's AArch32 callers (the compat ABI, module loaded)
$(B)/arm64/stress32: tests/stress.c $(TEST_HEADERS)
	@mkdir -p $(B)/arm64
	arm-linux-gnueabihf-gcc $(TEST_CFLAGS) -o $@ $<

# nrscan (tests/nrscan.c) calls only the numbers no system call is
# assigned to: the __NR_ names of each ABI's <asm/unistd.h>, listed by its
# compiler, are compiled into it, with the headers' version.
NR_NAMES = printf '\#include <asm/unistd.h>\n\#include <linux/version.h>\n' | \
	$(1) -dM -E - | sed -n -e 's/^\#define \(__NR_[a-z0-9_]*\) .*/\1,/p' \
	-e 's/^\#define LINUX_VERSION_CODE /\#define NR_HEADERS_VERSION /p' >$@

$(B)/nr/x86_64.h:
	@mkdir -p $(@D)
	$(call NR_NAMES,gcc)
$(B)/nr/i386.h:
	@mkdir -p $(@D)
	$(call NR_NAMES,gcc $(M32_CFLAGS))
$(B)/nr/aarch64.h:
	@mkdir -p $(@D)
	$(call NR_NAMES,aarch64-linux-gnu-gcc)
$(B)/nr/armhf.h:
	@mkdir -p $(@D)
	$(call NR_NAMES,arm-linux-gnueabihf-gcc)

NRSCAN_CFLAGS = $(TEST_CFLAGS) -I$(B)/nr -DNR_LIST='"$(notdir $(word 2,$^))"'

$(B)/nrscan: tests/nrscan.c $(B)/nr/x86_64.h tests/harness.h
	gcc $(NRSCAN_CFLAGS) -o $@ $<
$(B)/nrscan32: tests/nrscan.c $(B)/nr/i386.h tests/harness.h
	gcc $(M32_CFLAGS) $(NRSCAN_CFLAGS) -o $@ $<
$(B)/arm64/nrscan: tests/nrscan.c $(B)/nr/aarch64.h tests/harness.h
	@mkdir -p $(@D)
	aarch64-linux-gnu-gcc $(NRSCAN_CFLAGS) -o $@ $<
$(B)/arm64/nrscan32: tests/nrscan.c $(B)/nr/armhf.h tests/harness.h
	@mkdir -p $(@D)
	arm-linux-gnueabihf-gcc $(NRSCAN_CFLAGS) -o $@ $<

# audit's records in every module guest (tests/guest/module-row.sh), arm64's
# included; the subsystem lane builds its own (tests/subsystems/run-vm.sh)
SUBSYS_HEADERS := tests/subsystems/subsys.h $(TEST_HEADERS)

$(B)/subsys_audit32: tests/subsystems/subsys_audit.c $(SUBSYS_HEADERS)
	@mkdir -p $(B)
	gcc $(M32_CFLAGS) $(TEST_CFLAGS) -o $@ $<

$(B)/subsys_audit: tests/subsystems/subsys_audit.c $(SUBSYS_HEADERS)
	@mkdir -p $(B)
	gcc $(TEST_CFLAGS) -o $@ $<

$(B)/arm64/subsys_audit32: tests/subsystems/subsys_audit.c $(SUBSYS_HEADERS)
	@mkdir -p $(B)/arm64
	arm-linux-gnueabihf-gcc $(TEST_CFLAGS) -o $@ $<

$(B)/arm64/subsys_audit: tests/subsystems/subsys_audit.c $(SUBSYS_HEADERS)
	@mkdir -p $(B)/arm64
	aarch64-linux-gnu-gcc $(TEST_CFLAGS) -o $@ $<

$(B)/arm64/%: tests/%.c $(TEST_HEADERS)
	@mkdir -p $(B)/arm64
	aarch64-linux-gnu-gcc $(TEST_CFLAGS) -o $@ $<

# The library, the preload shim and fchmodat2ctl (see userspace/Makefile).
userspace:
	$(MAKE) -C userspace O=$(CURDIR)/$(B)/userspace tests

install-userspace:
	$(MAKE) -C userspace O=$(CURDIR)/$(B)/userspace install

uninstall-userspace:
	$(MAKE) -C userspace O=$(CURDIR)/$(B)/userspace uninstall

# What building and testing need, from the machine's apt sources (sudo
# when not root); nothing when it is all there.
deps:
	tests/install-deps.sh

check: deps
	$(MAKE) tests tests-arm64
	tests/check.sh

# Every lane on every row it applies to (issue 23 #5), for an issue that
# adds or changes a lane: the debug kernel built first (about ten
# minutes, once) and a row, and make check with F2_FULL=1 (the lanes of the
# matrix written full:LANE, tests/lib.sh; the real system also upgrades
# the package while the module serves, and boots a third time). With
# make stress (the stress lane's long form) and make sweep (every kernel
# the mirror offers), each its own run from a fresh clone: together
# they do not fit one sitting on a machine with nothing cached.
check-full: deps
	$(MAKE) tests tests-arm64
	tests/vm/build-debug-kernel.sh
	F2_FULL=1 F2_DEBUG=1 tests/check.sh

# The debug kernel's lane alone (plus the native rows); builds the kernel
# first if it is not cached.
check-debug: deps
	$(MAKE) tests tests-arm64
	tests/vm/build-debug-kernel.sh
	F2_DEBUG=1 F2_SERIES=6.1-debug tests/check.sh

demo:
	tests/demo.sh

bench:
	tests/install-deps.sh gnuplot-nox
	$(MAKE) tests tests-arm64
	tests/bench.sh

stress: deps
	$(MAKE) tests tests-arm64
	tests/stress.sh

# Every kernel ABI and flavour the apt mirror offers, built, booted, smoke
# tested; the table goes into README.md (about two minutes per kernel).
sweep: deps
	$(MAKE) tests tests-arm64
	tests/sweep.sh

# The user's path on Debian 12 and Debian 11 systems with systemd: apt, DKMS, reboot
# (tests/debian-system/); also a stage of make check.
debian-system: deps
	tests/debian-system/run.sh bookworm
	tests/debian-system/run.sh bullseye

# Everything make check does through sudo, done first (under build/no452's
# seccomp filter, no_new_privs forbids sudo).
prepare: deps $(B)/no452
	tests/debian-system/mkimage.sh bookworm >/dev/null
	tests/debian-system/mkimage.sh bullseye >/dev/null
	tests/userspace/build-root.sh bullseye >/dev/null
	tests/userspace/build-root.sh bullseye arm64 >/dev/null
	tests/userspace/build-root.sh bookworm arm64 >/dev/null

# Why the guests run on Debian 13's QEMU with tests/vm/qemu-patches/
# (tests/vm/README.md): the stock kernel on a busy host, three emulators.
emulator-check: deps
	$(MAKE) tests
	tests/vm/emulator-check.sh

# Not kbuild's clean: it would delete every *.ko below this directory,
# the cached kernels' modules included.
clean:
	rm -rf $(B)
	rm -f fchmodat2.ko fchmodat2.o fchmodat2.mod fchmodat2.mod.[co] \
	      .fchmodat2*.cmd Module.symvers modules.order .modules.order.cmd \
	      .Module.symvers.cmd module/*.o module/.*.cmd
