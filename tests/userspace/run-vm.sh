#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-vm.sh SERIES: the userspace scenario (tests/userspace/guest.sh) in
# one QEMU boot of the newest Debian kernel of SERIES (5.10, 6.1). Builds
# userspace/ (against this machine's glibc: Debian 12's), the module for
# that kernel (make KDIR=, as README says) and for another kernel (the
# "built for another kernel" case), tests/hog (another ftrace user on the
# module's hook site), stages the programs with the host's
# dynamic loader and libraries, boots, and prints the guest's TAP lines and
# the verdict. Exit status: 0 when the guest passed, 1 when a step failed,
# 2 when the VM or the build failed. Everything goes to
# build/<abi>/userspace/ (console.log is kept).
#
# F2_OFFLINE=1 uses the cached kernels only (see tests/vm/fetch-kernel.sh).
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

series=${1:?usage: run-vm.sh SERIES}
# The programs are this machine's (x86_64, Debian 12's glibc and libkmod).
case $series in
*-arm64) echo "run-vm.sh: $series: x86_64 kernels only" >&2; exit 2 ;;
esac
case $series in
5.10) other=6.1 ;;
*) other=5.10 ;;
esac

die() { echo "run-vm.sh: $*" >&2; exit 2; }

# The module for the other kernel first: f2_kernel sets the globals.
f2_kernel "$other" || die "cannot fetch the kernel of series $other"
other_krel=$KREL
other_out=$B/$ABI/userspace
mkdir -p "$other_out"
f2_build_module "$other_out/module-other" >"$other_out/build-other.log" 2>&1 ||
	die "cannot build the module for $other_krel: $other_out/build-other.log"

f2_kernel "$series" || die "cannot fetch the kernel of series $series"
out=$B/$ABI/userspace
mkdir -p "$out"
echo "== userspace in QEMU: $KREL (module for another kernel: $other_krel)"
f2_build_module "$out/module" >"$out/build.log" 2>&1 ||
	die "cannot build the module for $KREL: $out/build.log"
cp "$other_out/module-other/fchmodat2.ko" "$out/fchmodat2-other.ko"
# an IP-modifying ftrace user on the module's hook site (the "hooked by
# another ftrace user" case)
f2_build_hog "$out/hog" >>"$out/build.log" 2>&1 ||
	die "cannot build tests/hog for $KREL: $out/build.log"
U=$B/userspace
make -s -C "$top/userspace" O="$U" tests >>"$out/build.log" 2>&1 ||
	die "cannot build userspace/: $out/build.log"

progs=("$U/fchmodat2ctl" "$U/libtest" "$U/libtest-static" "$U/lchmod_prog")
stage=$out/f2
f2_stage "$stage" "$top/tests/userspace/guest.sh" "${progs[@]}" \
	"$U/libfchmodat2-preload.so" "$top/tests/guest/steps.sh" \
	"$out/module/fchmodat2.ko" "$out/fchmodat2-other.ko" \
	"$out/hog/f2_hog.ko" || die "cannot stage"
cp -L "$U/libfchmodat2.so.0" "$stage/"

# Debian 12's glibc, libkmod and what they need, from this machine
mkdir -p "$stage/lib"
cp -L /lib64/ld-linux-x86-64.so.2 "$stage/lib/"
LD_LIBRARY_PATH=$U ldd "${progs[@]}" "$U/libfchmodat2-preload.so" |
	awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
	while read -r lib; do
		cp -L "$lib" "$stage/lib/"
	done
rm -f "$stage/lib/libfchmodat2.so.0"

# the guest's /lib/modules/KREL: fchmodat2.ko in updates/, as make install
# and DKMS put it, and what depmod makes of it
mods=$stage/mods/lib/modules/$KREL
mkdir -p "$mods/updates"
cp "$out/module/fchmodat2.ko" "$mods/updates/"
cp "$MODDIR"/modules.builtin* "$MODDIR/modules.order" "$mods/"
depmod -b "$stage/mods" "$KREL" || die "depmod failed"

f2_boot "$stage" "$out/initrd.cpio.gz" "$out/console.log" -t 900 >"$out/verdict"
rc=$?
tr -d '\r' <"$out/console.log" | grep -E '^(not )?ok |^# harness steps|^# Totals'
cat "$out/verdict"
read -r p f s < <(f2_tap_count "$out/console.log")
echo "userspace $KREL: $p passed, $f failed, $s skipped"
[ "$rc" = 0 ] && [ "$f" = 0 ] && exit 0
[ "$rc" = 2 ] && exit 2
exit 1
