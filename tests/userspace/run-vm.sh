#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-vm.sh SERIES: the userspace scenario (tests/userspace/guest.sh) in
# one QEMU boot of the newest Debian kernel of SERIES (a row of the matrix
# with a userspace lane: 5.10, 6.1, 5.10-arm64, 6.1-arm64). Builds
# userspace/ with that kernel's Debian release (5.10: Debian 11; 6.1:
# Debian 12; with this machine's tools if it runs that release, else in a
# root of it by chroot; on arm64 cross-built in a root of that release,
# build-root.sh RELEASE arm64), the module for
# that kernel (make KDIR=, as README says) and for another kernel of the
# same architecture (the "built for another kernel" case), tests/kmods
# (another ftrace user on the module's hook site), stages the programs with
# the release's dynamic loader and libraries, boots, and prints the guest's
# TAP lines, the verdict and its F2-ROW line (f2_row). Exit status: 0 when the guest passed, 1 when
# a step failed, 2 when the VM or the build failed. Everything goes to
# build/<abi>/userspace/ (build/<abi>-arm64/userspace/ on arm64; console.log
# is kept).
#
# F2_OFFLINE=1 uses the cached kernels only (see tests/vm/fetch-kernel.sh).
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"

series=${1:?usage: run-vm.sh TARGET}
# The rows of the matrix whose lanes say userspace=RELEASE (tests/lib.sh;
# SERIES, or SERIES-full for the row booted with preempt=full): the
# target's Debian release, and, for the "module built for another kernel"
# case, a row of make check's userspace lane of the same architecture and
# the other series (5.10 for 6.1, 6.1 for 5.10).
arm() { case $1 in *-arm64 | *-arm64-*) echo arm64 ;; *) echo amd64 ;; esac; }
release=$(F2_SERIES='' f2_lane userspace | awk -F'|' -v s="$series" '$1 == s { print $3 }')
other=$(F2_SERIES='' F2_FULL='' f2_lane userspace | cut -d'|' -f1 | while read -r o; do
	[ "${o%%-*}" != "${series%%-*}" ] && [ "$(arm "$o")" = "$(arm "$series")" ] && echo "$o" && break
done)
if [ -z "$release" ] || [ -z "$other" ]; then
	echo "run-vm.sh: $series: no userspace lane in the matrix (tests/lib.sh), or no other" >&2
	exit 2
fi
f2_target "$series"

die() { echo "run-vm.sh: $*" >&2; exit 2; }

# The module for the other kernel first: f2_kernel sets the globals.
# Each target's build and guest go in build/userspace-vm/TARGET.
f2_kernel "$other" || die "cannot fetch the kernel of series $other"
other_krel=$KREL
other_out=$B/userspace-vm/$other
mkdir -p "$other_out"
f2_build_module "$other_out/module-other" >"$other_out/build-other.log" 2>&1 ||
	die "cannot build the module for $other_krel: $other_out/build-other.log"

f2_kernel "$f2_t_series" || die "cannot fetch the kernel of series $f2_t_series"
out=$B/userspace-vm/$series
mkdir -p "$out"
echo "== userspace in QEMU: $KREL (module for another kernel: $other_krel)"
f2_build_module "$out/module" >"$out/build.log" 2>&1 ||
	die "cannot build the module for $KREL: $out/build.log"
cp "$other_out/module-other/fchmodat2.ko" "$out/fchmodat2-other.ko"
# an IP-modifying ftrace user on the module's hook site (the "hooked by
# another ftrace user" case)
f2_build_kmods "$out/kmods" >>"$out/build.log" 2>&1 ||
	die "cannot build tests/kmods for $KREL: $out/build.log"
# Each guest runs its own Debian's userland, built there as a user of that
# release builds it: this machine's when it runs that release (Debian 12
# on a Debian 12 machine), else a root of the release (build-root.sh,
# f2_release_root: Debian 11's with its gcc, glibc 2.31 and libkmod) in
# which userspace/ is built by chroot.
# On arm64 both releases build in a root with the release's cross
# compiler and its arm64 libc and libkmod (build-root.sh RELEASE arm64),
# as Debian cross-builds a package for arm64.
make_vars=() cc=gcc
if [ "$DEBARCH" = arm64 ]; then
	cc=aarch64-linux-gnu-gcc
	make_vars=(CC=$cc AR=aarch64-linux-gnu-ar
		   "PKG_CONFIG=env PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config")
fi
sysroot=
if [ "$DEBARCH" = amd64 ]; then
	sysroot=$(f2_release_root "$release") ||
		die "cannot make the $release root"
fi
if [ "$DEBARCH" = amd64 ] && [ -z "$sysroot" ]; then
	U=$B/userspace
	make -s -C "$top/userspace" O="$U" tests >>"$out/build.log" 2>&1 ||
		die "cannot build userspace/: $out/build.log"
	ldd_in() { ldd "$@"; }
else
	if [ "$DEBARCH" = arm64 ]; then
		sysroot=$("$top/tests/userspace/build-root.sh" "$release" arm64) ||
			die "cannot make the $release arm64 root"
	fi
	# (/src may be the user's in a root's root: emptied, not removed)
	find "$sysroot/src" -mindepth 1 -delete &&
		mkdir -p "$sysroot/src/tests" ||
		die "cannot empty $sysroot/src"
	cp -a "$top/dkms.conf" "$top/userspace" "$sysroot/src/" &&
		cp -a "$top/tests/userspace" "$top/tests/harness.h" "$sysroot/src/tests/" ||
		die "cannot copy the sources into $sysroot/src"
	rm -rf "$sysroot/src/userspace/build"
	chrooted() { f2_chroot "$sysroot" "$@"; }
	{ chrooted sh -c "$cc"' --version | head -n 1; ldd --version | head -n 1' &&
		chrooted make -s -C /src/userspace O=/src/build "${make_vars[@]}" tests; } \
		>>"$out/build.log" 2>&1 ||
		die "cannot build userspace/ in the $release root: $out/build.log"
	U=$sysroot/src/build
	# ldd of the root's programs, their paths in the root
	ldd_in() { local f a=(); for f in "$@"; do a+=("/src/build/${f##*/}"); done
		chrooted env LD_LIBRARY_PATH=/src/build ldd "${a[@]}"; }
	# arm64's cannot run here: what they need, from their dynamic
	# sections, found in the root's arm64 library directories
	[ "$DEBARCH" = arm64 ] && ldd_in() { needed_in "$@"; }
fi
# needed_in FILE...: "NAME => PATH" (as ldd prints) for each library FILEs
# need, and what those need, from the root's /usr/lib/aarch64-linux-gnu
needed_in() {
	local todo=("$@") seen=" " f n p
	while [ "${#todo[@]}" -gt 0 ]; do
		f=${todo[0]}
		todo=("${todo[@]:1}")
		for n in $(aarch64-linux-gnu-readelf -d "$f" 2>/dev/null |
			sed -n 's/.*(NEEDED).*\[\(.*\)\]$/\1/p'); do
			case $seen in *" $n "*) continue ;; esac
			seen="$seen$n "
			for p in "$U/$n" "/usr/lib/aarch64-linux-gnu/$n" "/lib/aarch64-linux-gnu/$n" ''; do
				[ -n "$p" ] || { echo "run-vm.sh: $f needs $n, not in the root" >&2; return 1; }
				[ "$p" = "$U/$n" ] || p=$sysroot$p
				[ -e "$p" ] || continue
				# (the root's path, as ldd in the root prints it)
				echo "	$n => ${p#"$sysroot"} (0)"
				todo+=("$p")
				break
			done
		done
	done
}
echo "$release" >"$out/release"

# the module signed by a throwaway key no kernel trusts (as DKMS's is
# until enrolled): what fchmodat2ctl load says of it under lockdown
openssl req -new -x509 -newkey rsa:2048 -nodes -days 2 \
	-subj '/CN=fchmodat2 test key, trusted by no kernel/' \
	-keyout "$out/untrusted.key" -out "$out/untrusted.pem" >/dev/null 2>&1 &&
	f2_sign_module "$out/untrusted.key" "$out/untrusted.pem" \
		"$out/module/fchmodat2.ko" "$out/fchmodat2-signed.ko" ||
	die "cannot sign the module with a test key"

progs=("$U/fchmodat2ctl" "$U/libtest" "$U/libtest-static" "$U/lchmod_prog")
stage=$out/f2
f2_stage "$stage" "$top/tests/userspace/guest.sh" "${progs[@]}" \
	"$U/libfchmodat2-preload.so" "$top/tests/guest/steps.sh" \
	"$out/module/fchmodat2.ko" "$out/fchmodat2-other.ko" \
	"$out/fchmodat2-signed.ko" "$out/kmods/f2_ftrace_user.ko" || die "cannot stage"
cp -L "$U/libfchmodat2.so.0" "$stage/"

# the release's glibc, libkmod and what they need: this machine's
# (Debian 12), or the root's (Debian 11)
mkdir -p "$stage/lib"
# real_path PATH: PATH with its symbolic links resolved where it lives (in
# the root, whose links may be absolute)
real_path() {
	if [ -n "$sysroot" ]; then echo "$sysroot$(chrooted readlink -f "$1")"; else readlink -f "$1"; fi
}
loader=/lib64/ld-linux-x86-64.so.2
[ "$DEBARCH" = arm64 ] && loader=/lib/ld-linux-aarch64.so.1
cp "$(real_path "$loader")" "$stage/lib/${loader##*/}" ||
	die "cannot stage the dynamic loader"
LD_LIBRARY_PATH=$U ldd_in "${progs[@]}" "$U/libfchmodat2-preload.so" |
	awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | sort -u |
	while read -r lib; do
		cp "$(real_path "$lib")" "$stage/lib/${lib##*/}" ||
			die "cannot stage $lib"
	done || die "cannot stage the libraries the programs need"
rm -f "$stage/lib/libfchmodat2.so.0"
cp "$out/release" "$stage/release"

# the guest's /lib/modules/KREL: fchmodat2.ko in updates/, as make install
# and DKMS put it, and what depmod makes of it
mods=$stage/mods/lib/modules/$KREL
mkdir -p "$mods/updates"
cp "$out/module/fchmodat2.ko" "$mods/updates/"
cp "$MODDIR"/modules.builtin* "$MODDIR/modules.order" "$mods/"
depmod -b "$stage/mods" "$KREL" || die "depmod failed"

f2_boot "$stage" "$out/initrd.cpio.gz" "$out/console.log" -t 900 \
	${f2_t_append:+-a "$f2_t_append"} >"$out/verdict"
rc=$?
tr -d '\r' <"$out/console.log" | grep -E '^ *(not )?ok |^ *# harness steps|^ *# Totals'
cat "$out/verdict"
res=$(f2_result "$out/console.log" "$rc" "$out/verdict")
IFS='|' read -r p f s _ <<<"$res"
echo "userspace $KREL: $p passed, $f failed, $s skipped"
f2_row userspace "$KREL" "$res"
[ "$rc" = 0 ] && [ "$f" = 0 ] && exit 0
[ "$rc" = 2 ] && exit 2
exit 1
