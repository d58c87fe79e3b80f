#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-debug-kernel.sh [--cached]
#
# The debug kernel (issue 15): Debian's own 6.1 source (linux-source-6.1
# from this machine's apt sources) with mainline's 5d1f903f75a8 ("attr:
# block mode changes of symlinks") reverted, configured as allnoconfig plus
# debug-kernel/debug.config (KASAN, KFENCE, lockdep, atomic-sleep and
# preemption checks, list debugging, full preemption, ftrace direct calls,
# kprobes, the subsystem sets' filesystems built in), built for the QEMU
# guest. About ten minutes on two cores (535 s on 2026-12-07); cached in
# $f2_cache/vm/6.1-debug/VERSION-KEY, KEY being a hash of the config, the
# patches and $recipe below, so that a machine pays for the build once.
#
# Prints, last, the path of the env file that fetch-kernel.sh would give
# (SERIES ABI KREL VERSION VMLINUZ KDIR MODDIR HDR_CC CC).
#
# --cached: only look; print the newest cached build with this KEY (of any
# source version) and exit 0, or exit 1 if there is none. make check runs
# the debug lane when this finds one.
set -euo pipefail

die() { echo "build-debug-kernel.sh: $*" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/cache.sh
. "$here/cache.sh"
base=$f2_cache/vm/6.1-debug
cfg=$here/debug-kernel/debug.config
patches=("$here"/debug-kernel/*.patch)
# Bump when a change to the build steps below must rebuild cached kernels.
recipe=1
key=$({ echo "$recipe"; cat "$cfg" "${patches[@]}"; } | sha256sum | cut -c1-12)

if [ "${1:-}" = --cached ]; then
	shopt -s nullglob
	envs=("$base"/*-"$key"/env)
	# none built with this key: not cached (not an error)
	[ "${#envs[@]}" -gt 0 ] || exit 1
	ls -t "${envs[@]}" | head -n 1
	exit 0
fi
[ $# = 0 ] || die "usage: build-debug-kernel.sh [--cached]"

version=$(apt-cache show --no-all-versions linux-source-6.1 2>/dev/null |
	sed -n 's/^Version: //p' | head -n 1)
[ -n "$version" ] || die "apt knows no linux-source-6.1 (apt-get update?)"
dir=$base/$version-$key
# A finished build needs no lock (a build of another key may hold it).
if [ -f "$dir/env" ]; then
	echo "$dir/env"
	exit 0
fi
mkdir -p "$base"
exec 9>"$base/lock"
flock 9
# ...and another run may have finished this one while we waited.
if [ -f "$dir/env" ]; then
	echo "$dir/env"
	exit 0
fi

echo "build-debug-kernel.sh: building Debian's linux-source-6.1 $version with debug.config (about ten minutes on two cores: 535 s on 2026-12-07; once) in $dir" >&2
start=$(date +%s)
# Built in place (the build tree records its source's path); env, written
# last, marks a finished build.

rm -rf "$dir"
mkdir -p "$dir/dl" "$dir/src" "$dir/build"
(cd "$dir/dl" && apt-get download "linux-source-6.1=$version") >"$dir/dl.log" 2>&1 ||
	{ cat "$dir/dl.log" >&2; die "cannot download linux-source-6.1 $version"; }
dpkg-deb --fsys-tarfile "$dir"/dl/linux-source-6.1_*.deb |
	tar -xOf - ./usr/src/linux-source-6.1.tar.xz |
	tar -xJf - -C "$dir/src" --strip-components=1
rm -rf "$dir/dl"
for p in "${patches[@]}"; do
	patch -d "$dir/src" -p1 --quiet <"$p" || die "$(basename "$p") does not apply to $version"
done

kmake() {
	make -C "$dir/src" O="$dir/build" LOCALVERSION=-f2debug "$@"
}
kmake -s KCONFIG_ALLCONFIG="$cfg" allnoconfig >"$dir/config.log" 2>&1 ||
	{ cat "$dir/config.log" >&2; die "allnoconfig failed"; }
# Every line of the fragment must have survived: a dependency that
# Kconfig silently dropped would be a debug kernel without its detector.
missing=$(grep '^CONFIG_' "$cfg" | while read -r line; do
	grep -qxF "$line" "$dir/build/.config" || echo "$line"
done)
[ -z "$missing" ] || die "debug.config lines Kconfig did not take: $missing"

kmake -j"$(nproc)" >"$dir/build.log" 2>&1 ||
	{ tail -n 30 "$dir/build.log" >&2; die "the kernel build failed (log: $dir/build.log)"; }
krel=$(kmake -s kernelrelease)
kmake -s INSTALL_MOD_PATH="$dir/root" modules_install >>"$dir/build.log" 2>&1 ||
	die "modules_install failed"

{
	echo "SERIES=6.1-debug"
	echo "ABI=$krel"
	echo "KREL=$krel"
	echo "VERSION=$version"
	echo "VMLINUZ=$dir/build/arch/x86/boot/bzImage"
	echo "KDIR=$dir/build"
	echo "MODDIR=$dir/root/lib/modules/$krel"
	echo "HDR_CC=gcc"
	echo "CC=gcc"
} >"$dir/env.tmp"
mv "$dir/env.tmp" "$dir/env"
echo "build-debug-kernel.sh: built $krel in $(($(date +%s) - start)) s" >&2
echo "$dir/env"
