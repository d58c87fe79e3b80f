#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-qemu.sh: the emulator of every guest. Debian 13's QEMU 10.0
# (qemu-system-x86 and qemu-system-arm), unpacked with every library it
# needs into $f2_cache/qemu-SUITE, nothing installed; and the same
# version rebuilt from Debian's source with tests/vm/qemu-patches/ (x86_64
# and aarch64 system emulators, TCG only), which the guests run. Prints the
# path of its env file, which defines QEMU_X86 and QEMU_ARM64 (the rebuilt
# emulators, with Debian's firmware) and QEMU_X86_DEBIAN and
# QEMU_ARM64_DEBIAN (Debian's binaries, run through their own loader and
# libraries): command lines that run on this Debian 12 machine.
#
# Why not Debian 12's QEMU 7.2, and why a patch on 10.0: with multi-threaded
# TCG both can keep running a stale translation of kernel text that another
# vCPU has just patched, 7.2 within seconds, 10.0 when the host preempts a
# vCPU's thread at the wrong moment (tests/vm/README.md); every guest here
# runs its vCPUs in parallel.
#
# apt resolves the dependencies against an empty dpkg status (a private apt
# state whose sources are this machine's mirrors); indexes are refreshed
# when older than a day, never with F2_OFFLINE=1. The build (about 8
# minutes on two cores) is redone only when the version or a patch changes.
set -euo pipefail

die() { echo "fetch-qemu.sh: $*" >&2; exit 1; }
suite=trixie
pkgs=(qemu-system-x86 qemu-system-arm)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/vm/cache.sh
. "$here/cache.sh"
# shellcheck source=tests/vm/apt-mirrors.sh
. "$here/apt-mirrors.sh"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
dir=$f2_cache/qemu-$suite
state=$dir/apt
env=$dir/env
mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
exec 9>"$dir/lock"
flock 9

x86() { # the command line, in words; modules of its own, not the host's 7.2
	echo env QEMU_MODULE_DIR="$dir/root/usr/lib/x86_64-linux-gnu/qemu" \
		"$dir/root/usr/lib64/ld-linux-x86-64.so.2" \
		--library-path "$dir/root/usr/lib/x86_64-linux-gnu" \
		"$dir/root/usr/bin/qemu-system-$1" -L "$dir/root/usr/share/qemu" \
		-L "$dir/root/usr/share/seabios"
}
# The patches' identity: the build is redone when it changes.
patches_id=$(cat "$here"/qemu-patches/*.patch | sha256sum | cut -c1-16)
works() {
	# shellcheck disable=SC1090
	[ -r "$env" ] && (. "$env" && [ "$QEMU_PATCHES" = "$patches_id" ] &&
		$QEMU_X86 --version && $QEMU_ARM64 --version &&
		$QEMU_X86_DEBIAN --version) >/dev/null 2>&1
}
if works; then
	echo "$env"
	exit 0
fi

private_apt "$state" amd64 <<SOURCES
deb [signed-by=$keyring] $debian_uri $suite main
deb [signed-by=$keyring] $security_uri $suite-security main
deb-src [signed-by=$keyring] $debian_uri $suite main
deb-src [signed-by=$keyring] $security_uri $suite-security main
SOURCES
[ "${F2_OFFLINE:-0}" != 1 ] || die "F2_OFFLINE=1 but Debian 13's QEMU is not cached in $dir"
if [ -z "$(find "$state/updated" -mmin -1440 2>/dev/null)" ]; then
	apt-get "${apt_opts[@]}" update >"$state/update.log" 2>&1 ||
		{ cat "$state/update.log" >&2; die "apt-get update failed"; }
	! grep -Eq 'NO_PUBKEY|EXPKEYSIG|BADSIG|GPG error|not signed' "$state/update.log" ||
		{ cat "$state/update.log" >&2; die "signature check failed"; }
	touch "$state/updated"
fi
echo "fetch-qemu.sh: downloading Debian 13's ${pkgs[*]} and their dependencies" >&2
# only this download's packages are unpacked below
rm -f "$state"/cache/archives/*.deb
# An empty status: apt fetches the whole closure of Depends and Pre-Depends.
apt-get "${apt_opts[@]}" -o Debug::NoLocking=1 -y --no-install-recommends \
	-o APT::Sandbox::User=root --download-only install "${pkgs[@]}" \
	>"$dir/download.log" 2>&1 ||
	{ cat "$dir/download.log" >&2; die "apt-get --download-only failed"; }
rm -rf "$dir/root"
mkdir -p "$dir/root"
for deb in "$state"/cache/archives/*.deb; do
	dpkg-deb -x "$deb" "$dir/root"
done
version=$(dpkg-deb -f "$state"/cache/archives/qemu-system-x86_*.deb Version)
# The source's version: the binary's, unless a rebuild (binNMU) says
# "Source: qemu (VERSION)".
src_version=$(dpkg-deb -f "$state"/cache/archives/qemu-system-x86_*.deb Source |
	sed -n 's/.*(\(.*\)).*/\1/p')
src_version=${src_version:-$version}

# The same version from Debian's source (the Sources index is signed like
# the packages), with the patches; meson 1.5+ (Debian 12 has 1.0) and
# pycotap from Debian 13, unpacked, for QEMU's configure. Debian's source
# ("+ds") has no firmware: the guests use the packages' firmware.
echo "fetch-qemu.sh: building QEMU $version with $(cd "$here/qemu-patches" && echo *.patch)" >&2
work=$dir/build
rm -rf "$work"
mkdir -p "$work/tools"
(cd "$work" && apt-get "${apt_opts[@]}" -o Debug::NoLocking=1 \
	-o APT::Sandbox::User=root --download-only source "qemu=$src_version" &&
	apt-get "${apt_opts[@]}" -o Debug::NoLocking=1 \
		-o APT::Sandbox::User=root download meson python3-pycotap) \
	>"$dir/build.log" 2>&1 ||
	{ cat "$dir/build.log" >&2; die "cannot download QEMU's source"; }
for deb in "$work"/*.deb; do
	dpkg-deb -x "$deb" "$work/tools"
done
upstream=${src_version#*:}
upstream=${upstream%-*}
tar -C "$work" -xf "$work/qemu_$upstream.orig.tar"*
src=$(find "$work" -mindepth 1 -maxdepth 1 -type d -name 'qemu-*' | head -n 1)
[ -n "$src" ] || die "QEMU's source did not unpack"
for p in "$here"/qemu-patches/*.patch; do
	patch -d "$src" -p1 -s <"$p" || die "$p does not apply to QEMU $version"
done
sed -i 's/unpack_edk2_blobs = bzip2.found()/unpack_edk2_blobs = false/' \
	"$src/meson.build"
mkdir -p "$src/build"
(
	cd "$src/build"
	export PATH=$work/tools/usr/bin:/usr/bin:/usr/sbin:/bin:/sbin
	export PYTHONPATH=$work/tools/usr/lib/python3/dist-packages
	../configure --target-list=x86_64-softmmu,aarch64-softmmu \
		--python=/usr/bin/python3 --without-default-features \
		--enable-tcg --enable-fdt=system --disable-docs \
		--disable-tools --disable-install-blobs &&
		ninja -j "$(($(nproc) + 1))" qemu-system-x86_64 qemu-system-aarch64
) >>"$dir/build.log" 2>&1 ||
	{ tail -n 30 "$dir/build.log" >&2; die "QEMU's build failed (log: $dir/build.log)"; }
rm -rf "$dir/bin"
mkdir -p "$dir/bin"
cp "$src/build/qemu-system-x86_64" "$src/build/qemu-system-aarch64" "$dir/bin/"
rm -rf "$work"

patched() { # the rebuilt emulator, with the packages' firmware
	echo "$dir/bin/qemu-system-$1" -L "$dir/root/usr/share/qemu" \
		-L "$dir/root/usr/share/seabios"
}
{
	echo "# generated by tests/vm/fetch-qemu.sh"
	printf 'QEMU_VERSION=%q\n' "$version"
	printf 'QEMU_PATCHES=%q\n' "$patches_id"
	printf 'QEMU_X86=%q\n' "$(patched x86_64)"
	printf 'QEMU_ARM64=%q\n' "$(patched aarch64)"
	printf 'QEMU_X86_DEBIAN=%q\n' "$(x86 x86_64)"
	printf 'QEMU_ARM64_DEBIAN=%q\n' "$(x86 aarch64)"
} >"$env.new"
mv "$env.new" "$env"
works || die "QEMU does not run here (see $env)"
echo "$env"
