#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build-root.sh SUITE: a Debian root of SUITE (bullseye: Debian 11) with
# what a user of that release builds userspace/ with: its gcc, make, libc,
# libkmod and pkgconf; and what its Debian developer builds and checks
# the packages with: dpkg-dev, debhelper, dkms (dh_dkms) and lintian; from
# this machine's apt sources
# (tests/vm/apt-mirrors.sh). Made once with mmdebstrap and kept in
# $f2_cache/userland/SUITE-vN (SUITE-arm64-vN: the cross root below, without
# the packaging tools) (tests/vm/cache.sh); prints the root's path.
# The userspace lane builds the library, the preload shim and fchmodat2ctl
# inside it (chroot), and runs them with its libraries in the guests of
# that release's kernel; tests/package.sh builds the packages in it
# (dpkg-buildpackage, lintian) for the real system of that release. Needs root for mmdebstrap (sudo otherwise, as
# make prepare does; /src in the root is then the user's, who builds in it
# with unshare -r chroot).
#
# F2_OFFLINE=1: use a root already made, never download.
set -euo pipefail

die() { echo "build-root.sh: $*" >&2; exit 1; }
suite=${1:?usage: build-root.sh SUITE [arm64]}
# build-root.sh SUITE arm64: another root, with SUITE's cross compiler
# and its arm64 libc and libkmod (multiarch, as Debian cross-builds: sbuild
# --host=arm64), for the arm64 guests' userspace lane. From SUITE's point
# release only: a Multi-Arch: same package (libc6) must have one version
# on both architectures, and -security can carry an amd64 update whose
# arm64 build a mirror does not serve (seen: bullseye-security's glibc).
host=${2:-}
# shellcheck disable=SC2054 # commas inside an option's value
case $host in
'') # the packages' Build-Depends (debian/control): dh_dkms is in dkms
    # up to Debian 11, in dh-dkms since Debian 12; dh_auto_test's man-db
    # and python3
    extra=(--include=build-essential,dpkg-dev,debhelper,dkms,lintian,man-db,python3)
    [ "$suite" = bullseye ] || extra+=(--include=dh-dkms)
    root_version=3 security=1 ;;
arm64) extra=(--architectures=amd64,arm64
	      --include=crossbuild-essential-arm64,libc6-dev:arm64,libkmod-dev:arm64)
       root_version=1 security= ;;
*) die "usage: build-root.sh SUITE [arm64]" ;;
esac
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/vm/cache.sh
. "$repo/tests/vm/cache.sh"
dir=$f2_cache/userland/$suite${host:+-$host}-v$root_version
root=$dir/root
if [ -e "$dir/done" ]; then
	echo "$root"
	exit 0
fi
[ "${F2_OFFLINE:-0}" != 1 ] || die "F2_OFFLINE=1 and no $suite root in $dir"
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || die "mmdebstrap needs root (or sudo)"
	echo "build-root.sh: mmdebstrap needs root: running it through sudo" >&2
	sudo env F2_CACHE="$f2_cache" "$0" "$suite" ${host:+"$host"} >/dev/null
	[ -e "$dir/done" ] || die "sudo $0 made no root"
	# the user builds in /src (unshare -r chroot, run-vm.sh)
	sudo chown "$(id -u):$(id -g)" "$root/src"
	echo "$root"
	exit 0
fi
# shellcheck source=tests/vm/apt-mirrors.sh
. "$repo/tests/vm/apt-mirrors.sh"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

mkdir -p "$dir"
exec 9>"$dir/lock"
flock 9
[ -e "$dir/done" ] && { echo "$root"; exit 0; }
rm -rf --one-file-system "$root"
echo "build-root.sh: making a Debian $suite root to build userspace/ in ($dir)" >&2
mmdebstrap --mode=root --variant=minbase \
	--include=gcc,make,libc6-dev,libkmod-dev,pkgconf "${extra[@]}" \
	--aptopt='APT::Install-Recommends "false"' \
	"$suite" "$root" \
	"deb [signed-by=$keyring] $debian_uri $suite main" \
	${security:+"deb [signed-by=$keyring] $security_uri $suite-security main"} \
	>"$dir/mmdebstrap.log" 2>&1 ||
	{ tail -n 30 "$dir/mmdebstrap.log" >&2; die "mmdebstrap failed: $dir/mmdebstrap.log"; }
mkdir -p "$root/src"
touch "$dir/done"
echo "$root"
