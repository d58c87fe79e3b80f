#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install what building and testing need, from the machine's own apt
# sources (Debian 12), and the packages named as arguments. Does nothing
# when everything is there.
set -euo pipefail

# gcc-12-multilib, not gcc-multilib: that conflicts with the cross
# compilers the arm64 guest's programs need. ovmf to dosfstools: the
# Secure Boot boots of tests/debian-system (the firmware, an EFI system
# partition, Debian 13's virt-fw-vars run by this machine's python3). The
# last line: what tests/vm/fetch-qemu.sh needs to rebuild QEMU.
pkgs=(build-essential gcc-12-multilib libc6-dev-x32 libelf-dev bc bison flex kmod cpio
      xz-utils zstd busybox-static qemu-system-x86 ca-certificates
      dwarves dkms dh-dkms debhelper dpkg-dev fakeroot lintian
      gcc-aarch64-linux-gnu libc6-dev-arm64-cross gcc-arm-linux-gnueabihf
      libc6-dev-armhf-cross qemu-system-arm
      libkmod-dev pkgconf man-db groff-base python3
      e2fsprogs xfsprogs btrfs-progs util-linux mmdebstrap
      ovmf mtools fdisk dosfstools openssl python3-cryptography
      python3-importlib-resources
      patch ninja-build python3-venv libglib2.0-dev libpixman-1-dev
      libfdt-dev zlib1g-dev)
# more for one target (make bench: gnuplot-nox)
pkgs+=("$@")
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done
[ "${#missing[@]}" = 0 ] && exit 0
# Installing packages is the one step that needs root: a user runs the
# rest as themselves, and this through sudo.
sudo=()
if [ "$(id -u)" != 0 ]; then
	if ! command -v sudo >/dev/null; then
		echo "install-deps.sh: missing packages: ${missing[*]}; as root: apt-get install ${missing[*]}" >&2
		exit 1
	fi
	echo "install-deps.sh: installing ${missing[*]} with sudo" >&2
	sudo=(sudo)
fi
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive \
	apt-get install -y --no-install-recommends "${missing[@]}"
