#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [SUITE]: the user's whole path on a real Debian system (systemd,
# apt, DKMS), tests/debian-system/guest.sh in the image of mkimage.sh, booted
# several times from the same disk on two parallel vCPUs (tests/vm/run.sh),
# boots 1 and 2 (and 3 with F2_FULL=1: a package upgrade) as QEMU -kernel
# boots, then:
#   bookworm (Debian 12, the default): sb1 and sb2 through UEFI firmware
#     with Secure Boot (below); the series' newer kernel ABI the guest
#     upgraded to (apt, from the security suite: when the mirror has one);
#     the cloud flavour the guest installed (a second kernel of the
#     series); the last boot runs the 6.12 kernel the guest installed;
#   bullseye (Debian 11): the newer ABI, then the cloud flavour;
# the kernels the guest installed are booted from their vmlinuz and initrd,
# read from the guest's disk (debugfs). Builds the Debian packages from the
# tree as a user of that release does (dpkg-buildpackage, as package.sh:
# in a root of that release unless this machine runs it, f2_release_root)
# and puts them,
# the test programs and Debian 13's chmod on a second drive.
#
# Prints every boot's TAP lines, verdict and F2-ROW line (f2_row,
# tests/lib.sh); exits non-zero on any failure. Artifacts in build/debian-system/ (build/debian-system-bullseye/):
# console-BOOT.log for each boot.
set -uo pipefail
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/guest/steps.sh
. "$top/tests/guest/steps.sh"

suite=${1:-bookworm}
case $suite in
bookworm) id=debian-system relname='Debian 12' ;;
bullseye) id=debian-system-bullseye relname='Debian 11' ;;
*) echo "run.sh: unknown suite $suite (bookworm, bullseye)" >&2; exit 2 ;;
esac
out=$B/$id
ver=$(f2_version)
die() {
	tap_result 1 1 "$id: $*"
	f2_row_failed "$id" "${krel:-?}" "$*"
	exit 1
}
rm -rf "$out"
mkdir -p "$out/f2/bin" "$out/f2/debs"

env=$("$top/tests/debian-system/mkimage.sh" "$suite" 2>"$out/mkimage.log" | tail -n 1) &&
	[ -r "$env" ] || { cat "$out/mkimage.log" >&2; die "cannot make the $relname image"; }
# shellcheck disable=SC1090
. "$env"
krel=$KREL

# the packages, as a user of the release builds them (README): with this
# machine's tools if it runs that release, else in a root of it
pkgroot=$(f2_release_root "$suite") ||
	die "cannot make the $suite root to build the packages in"
pkg=$out/pkg
[ -n "$pkgroot" ] && pkg=$pkgroot/src/debian-system-pkg
f2_build_debs "$pkg" "" "$pkgroot" >"$out/pkg.log" 2>&1 ||
	{ tail -n 20 "$out/pkg.log"; die "dpkg-buildpackage failed: $out/pkg.log"; }
cp "$pkg/fchmodat2-dkms_${ver}_all.deb" \
	"$pkg/fchmodat2ctl_${ver}_amd64.deb" \
	"$pkg/libfchmodat2-0_${ver}_amd64.deb" "$out/f2/debs/" ||
	die "dpkg-buildpackage made no .debs"
# make check-full (F2_FULL=1): the next version of the same tree, for a
# package upgrade while the module is loaded and serving (boot 2), and a
# third boot that must load the new version
# (the series' newer ABI: booted when the mirror has one, SERIES_KREL;
# guest.sh chains the same boots)
series=${SERIES_KREL:+series}
case $suite in
bookworm) after="sb1 sb2 $series cloud native" ;;
bullseye) after="$series cloud" ;;
esac
boots="1 2 $after"
if [ -n "${F2_FULL:-}" ]; then
	next=$ver.1
	mkdir -p "$out/f2/debs-next"
	f2_build_debs "$pkg-next" "$next" "$pkgroot" >"$out/pkg-next.log" 2>&1 &&
		cp "$pkg-next/fchmodat2-dkms_${next}_all.deb" \
			"$pkg-next/fchmodat2ctl_${next}_amd64.deb" \
			"$pkg-next/libfchmodat2-0_${next}_amd64.deb" \
			"$out/f2/debs-next/" ||
		die "dpkg-buildpackage of version $next failed: $out/pkg-next.log"
	echo "$next" >"$out/f2/NEXT"
	boots="1 2 3 $after"
fi
# The Secure Boot boots (sb1, sb2): OVMF with Secure Boot and Microsoft's
# keys (this machine's ovmf package, its OVMF_VARS_4M.ms.fd), a third disk
# with an EFI system partition that holds Debian's signed shim, MokManager
# and GRUB (mkimage.sh) and the guest's own signed kernel and initrd, read
# from its disk; GRUB's command line is the one -k boots get. Before sb2,
# DKMS's key (the guest's /var/lib/dkms/mok.pub) goes into shim's MokList
# in the firmware's variable store, where MokManager puts it after
# `mokutil --import` and a person at the keyboard (Debian 13's virt-fw-vars,
# python3-virt-firmware, run by this machine's python3).
shim_guid=605dab50-e046-4300-abb6-3dd810dd8b23
# mkesp: $out/esp.img from the guest's disk
mkesp() {
	local img=$out/esp.img part=$out/esp.part m
	debugfs -R "dump /boot/vmlinuz-$krel $out/vmlinuz-sb" "$out/rootfs.img" 2>/dev/null &&
		debugfs -R "dump /boot/initrd.img-$krel $out/initrd-sb" "$out/rootfs.img" 2>/dev/null &&
		[ -s "$out/vmlinuz-sb" ] && [ -s "$out/initrd-sb" ] || return 1
	cat >"$out/grub.cfg" <<-GRUB
		set timeout=0
		linux /vmlinuz root=/dev/vda rw console=ttyS0 panic=-1 oops=panic loglevel=5 systemd.show_status=0
		initrd /initrd.img
		boot
	GRUB
	rm -f "$img" "$part"
	truncate -s 64M "$img" && truncate -s 63M "$part" &&
		printf 'label: gpt\nstart=2048, type=C12A7328-F81F-11D2-BA4B-00A0C93EC93B, name=ESP\n' |
		sfdisk -q "$img" && mkfs.fat -F 32 -n ESP "$part" >/dev/null || return 1
	m=(-i "$part")
	mmd "${m[@]}" ::/EFI ::/EFI/BOOT ::/EFI/debian &&
		mcopy "${m[@]}" "$EFI/shimx64.efi" ::/EFI/BOOT/BOOTX64.EFI &&
		mcopy "${m[@]}" "$EFI/mmx64.efi" "$EFI/grubx64.efi" ::/EFI/BOOT/ &&
		mcopy "${m[@]}" "$out/grub.cfg" ::/EFI/debian/grub.cfg &&
		mcopy "${m[@]}" "$out/vmlinuz-sb" ::/vmlinuz &&
		mcopy "${m[@]}" "$out/initrd-sb" ::/initrd.img || return 1
	dd if="$part" of="$img" bs=1M seek=1 conv=notrunc status=none &&
		rm -f "$part"
}
# enrol: DKMS's key, from the guest's disk, into MokList in $out/vars.fd
enrol() {
	local vf=$out/virt-fw
	debugfs -R "dump /var/lib/dkms/mok.pub $out/mok.der" "$out/rootfs.img" 2>/dev/null &&
		openssl x509 -inform DER -in "$out/mok.der" -out "$out/mok.pem" &&
		echo "# DKMS's key: $(openssl x509 -in "$out/mok.pem" -noout -subject -serial | paste -sd' ')" || return 1
	"$top/tests/vm/fetch-debs.sh" trixie "$vf" python3-virt-firmware \
		>"$out/virt-fw.versions" || return 1
	PYTHONPATH=$vf/usr/lib/python3/dist-packages /usr/bin/python3 -m virt.firmware.vars \
		--input "$out/vars.fd" --output "$out/vars-mok.fd" \
		--add-mok "$shim_guid" "$out/mok.pem" >"$out/virt-fw.log" 2>&1 &&
		mv "$out/vars-mok.fd" "$out/vars.fd"
}

# the test programs (static), and Debian 13's loader, glibc and chmod
flags=(-O2 -Wall -Wextra -Werror -static)
m32=(-m32 -isystem "/usr/include/$(gcc -print-multiarch)")
gcc "${flags[@]}" -o "$out/f2/bin/fchmodat2_test" "$top"/tests/fchmodat2_test/*.c &&
	gcc "${m32[@]}" "${flags[@]}" -o "$out/f2/bin/fchmodat2_test32" \
		"$top"/tests/fchmodat2_test/*.c &&
	gcc "${flags[@]}" -o "$out/f2/bin/subsys_tree" "$top/tests/subsystems/subsys_tree.c" ||
	die "cannot build the test programs"
"$top/tests/vm/fetch-debs.sh" trixie "$out/trixie-root" libc6 coreutils \
	>"$out/trixie.versions" || die "cannot fetch Debian 13's libc6 and coreutils"
for p in usr/lib64/ld-linux-x86-64.so.2 usr/lib/x86_64-linux-gnu/libc.so.6 \
	 usr/bin/chmod; do
	mkdir -p "$out/f2/trixie/$(dirname "$p")"
	cp -L "$out/trixie-root/$p" "$out/f2/trixie/$p" || die "no $p in Debian 13's packages"
done
rm -rf "$out/trixie-root"
cp "$top/tests/debian-system/guest.sh" "$top/tests/guest/steps.sh" \
	"$top/tests/subsystems/suite.sh" "$out/f2/"
echo "$ver" >"$out/f2/VERSION"
echo "$suite" >"$out/f2/RELEASE"
truncate -s 256M "$out/f2.img"
mke2fs -q -t ext4 -L F2 -d "$out/f2" "$out/f2.img" || die "cannot make the F2 drive"
# The disk the guest changes: a copy of the cached image.
cp --sparse=always "$ROOTFS" "$out/rootfs.img" || die "cannot copy $ROOTFS"

# boot_failed WHY: a boot that could not be made, one failure
boot_failed() {
	tap_result 1 1 "$id boot $boot: $*"
	f2_row_failed "$id boot $boot" "$bk" "$*"
	status=1
}
status=0
for boot in $boots; do
	kernel=$VMLINUZ initrd=$INITRD bk=$krel
	case $boot in
	native | cloud | series)
		# a kernel the guest installed (the series' newer ABI, the
		# cloud flavour; Debian 12's 6.12), from its /boot
		bk=$UPGRADE_KREL
		[ "$boot" = cloud ] && bk=$CLOUD_KREL
		[ "$boot" = series ] && bk=$SERIES_KREL
		kernel=$out/vmlinuz-$boot initrd=$out/initrd-$boot
		debugfs -R "dump /boot/vmlinuz-$bk $kernel" "$out/rootfs.img" 2>/dev/null &&
			debugfs -R "dump /boot/initrd.img-$bk $initrd" "$out/rootfs.img" 2>/dev/null &&
			[ -s "$kernel" ] && [ -s "$initrd" ] || {
			boot_failed "no /boot/vmlinuz-$bk or initrd on the guest's disk"
			break
		} ;;
	esac
	boot_with=(-k "$kernel" -i "$initrd" -a "root=/dev/vda rw systemd.show_status=0")
	esp=()
	case $boot in
	sb1)
		cp /usr/share/OVMF/OVMF_VARS_4M.ms.fd "$out/vars.fd" &&
			chmod u+w "$out/vars.fd" && mkesp || {
			boot_failed "cannot make the EFI system partition or the variable store"
			break
		} ;;
	sb2)
		enrol || {
			boot_failed "cannot enrol DKMS's key in MokList: $out/virt-fw.log"
			break
		} ;;
	esac
	case $boot in
	sb*)
		bk="$krel, Secure Boot"
		boot_with=(-U "$out/vars.fd")
		# (the ESP in a PCI slot after the other two disks': the
		# guest's /dev/vda stays its root)
		esp=(-drive "file=$out/esp.img,if=none,format=raw,id=esp"
		     -device virtio-blk-pci,drive=esp,bootindex=0,addr=0x10) ;;
	esac
	echo "# == $id: boot $boot of $relname ($bk, systemd)"
	# -I: a DKMS build under emulation prints nothing for minutes
	"$top/tests/vm/run.sh" "${boot_with[@]}" -m 1536 -t 1800 -I 900 \
		-l "$out/console-$boot.log" -- \
		-drive "file=$out/rootfs.img,if=virtio,format=raw" \
		-drive "file=$out/f2.img,if=virtio,format=raw,readonly=on" \
		"${esp[@]}" >"$out/verdict-$boot"
	rc=$?
	tr -d '\r' <"$out/console-$boot.log" | grep -E '^ *(not )?ok |^ *# '
	cat "$out/verdict-$boot"
	res=$(f2_result "$out/console-$boot.log" "$rc" "$out/verdict-$boot")
	f2_row "$id boot $boot" "$bk" "$res"
	IFS='|' read -r _ bf _ <<<"$res"
	if [ "$rc" != 0 ] || [ "$bf" != 0 ]; then
		status=1
		break
	fi
done
# the guest's disk (a gigabyte) is kept only when something failed
[ "$status" = 0 ] && rm -f "$out/rootfs.img"
exit "$status"
