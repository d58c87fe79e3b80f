#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkimage.sh [SUITE]: a Debian system to boot in QEMU, as users run it:
# systemd as init, apt, dkms with gcc and the headers of the release's
# newest kernel (Debian 12's 6.1: SUITE bookworm, the default; Debian 11's
# 5.10: bullseye), and that kernel. Made once with mmdebstrap from this
# machine's apt sources (tests/vm/apt-mirrors.sh) and kept in
# $f2_cache/realsys/SUITE-vN/ (tests/vm/cache.sh; the lane's first name,
# kept so that cached images stay valid): bump image_version
# below whenever what goes into the image changes. Prints the env file
# (RELEASE, ROOTFS, VMLINUZ, INITRD, KREL, CLOUD_KREL, SERIES_KREL; UPGRADE_KREL and EFI
# for Debian 12). Needs root for mmdebstrap (device nodes, file owners): run
# through sudo otherwise.
#
# In the image:
#   - /dev/vda is the root (ext4, 4 GiB sparse, no partition table); the
#     kernel and initramfs are also copied out, for QEMU's -kernel;
#   - f2-stage.service runs /f2/guest.sh from the drive labelled F2
#     (/dev/vdb) once the system is up, its output on the console;
#   - the system and its kernel are the release's point release's; the
#     security suite is in its sources (an administrator's sources.list);
#   - /var/cache/f2-debs-series holds what "apt upgrade" of
#     linux-image-amd64 and linux-headers-amd64 brings from the security
#     suite: the series' newer kernel ABI (SERIES_KREL; empty when the
#     point release's ABI is the newest), the kernel upgrade within the
#     series every administrator meets;
#   - /var/cache/f2-debs holds the cloud flavour of the same kernel ABI
#     (image and headers): the "second kernel" a user installs later;
#   - Debian 12: /var/cache/f2-debs-upgrade holds what `apt install
#     linux-image-6.12-amd64 linux-headers-6.12-amd64` needs (Debian 12's
#     6.12, which has fchmodat2): the kernel upgrade that makes the module
#     unneeded. (Debian 11's way out of 5.10 within the release,
#     bullseye-backports' 6.1, is no longer on Debian's mirrors: it is in
#     the archive since Debian 11's end of life);
#   - Debian 12 only: Debian's signed shim, MokManager and GRUB (shim-signed,
#     shim-helpers-amd64-signed, grub-efi-amd64-signed), unpacked into
#     $dir/efi/ rather than installed: their postinst runs grub-install,
#     which in mmdebstrap's chroot would find this machine's firmware.
#     tests/debian-system/run.sh puts them on an EFI system partition for the
#     Secure Boot boots; mokutil is installed;
#   - no network, no getty: nothing waits for what QEMU does not give.
#
# F2_OFFLINE=1: use an image already made, never download.
set -euo pipefail

die() { echo "mkimage.sh: $*" >&2; exit 1; }
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/vm/cache.sh
. "$repo/tests/vm/cache.sh"
suite=${1:-bookworm}
case $suite in
bookworm) image_version=5 name=debian12 ;;
bullseye) image_version=2 name=debian11 ;;
*) die "unknown suite $suite (bookworm, bullseye)" ;;
esac
dir=$f2_cache/realsys/$suite-v$image_version
env=$dir/env
if [ -r "$env" ]; then
	echo "$env"
	exit 0
fi
[ "${F2_OFFLINE:-0}" != 1 ] || die "F2_OFFLINE=1 and no image in $dir"
if [ "$(id -u)" != 0 ]; then
	command -v sudo >/dev/null || die "mmdebstrap needs root (or sudo)"
	echo "mkimage.sh: mmdebstrap needs root: running it through sudo" >&2
	# Made as the user, so that the cache stays the user's to delete.
	mkdir -p "$dir"
	sudo env F2_CACHE="$f2_cache" "$0" "$suite" >/dev/null
	sudo chown -R "$(id -u):$(id -g)" "$dir"
	[ -r "$env" ] || die "sudo $0 made no image"
	echo "$env"
	exit 0
fi
# shellcheck source=tests/vm/apt-mirrors.sh
. "$repo/tests/vm/apt-mirrors.sh"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

mkdir -p "$dir"
exec 9>"$dir/lock"
flock 9
[ -r "$env" ] && { echo "$env"; exit 0; }
root=$dir/root
# A run that was interrupted may have left /proc, /sys or /dev/pts
# mounted in its root: unmount them, and never delete across a mount.
awk -v r="$root/" 'index($2, r) == 1 { print $2 }' /proc/mounts | sort -r |
	while read -r m; do umount -l "$m" || die "cannot unmount $m"; done
rm -rf --one-file-system "$root" "$dir/rootfs.img"
pkgs=systemd-sysv,udev,kmod,dbus,apt,dkms,openssl,initramfs-tools,zstd
pkgs=$pkgs,linux-image-amd64,linux-headers-amd64,procps
# The system as installed from the release's point release (its kernel
# the point release's ABI); the security suite is added after, as an
# administrator's sources.list has it, for the kernel upgrade within the
# series it brings (below).
sources=("deb [signed-by=$keyring] $debian_uri $suite main")
security_line="deb [signed-by=$keyring] $security_uri $suite-security main"
if [ "$suite" = bookworm ]; then
	pkgs=$pkgs,mokutil
	# the Secure Boot boots' shim and GRUB; Debian 12's 6.12
	get_efi='apt-get -q download shim-signed shim-helpers-amd64-signed grub-efi-amd64-signed'
	upgrade='linux-image-6.12-amd64 linux-headers-6.12-amd64'
else
	get_efi=true upgrade=
fi
# The initramfs holds what QEMU's disk needs, not every driver
# (MODULES=list and a hook): an administrator's choice that makes each
# kernel installation, in the guest too, take seconds rather than minutes.
mmdebstrap --mode=root --variant=minbase --include="$pkgs" \
	--aptopt='APT::Install-Recommends "false"' \
	--setup-hook='mkdir -p "$1/etc/initramfs-tools/conf.d" "$1/etc/initramfs-tools/hooks"
		echo MODULES=list >"$1/etc/initramfs-tools/conf.d/f2-qemu.conf"
		printf "%s\n" "#!/bin/sh" "[ \"\$1\" = prereqs ] && exit 0" \
			". /usr/share/initramfs-tools/hook-functions" \
			"manual_add_modules virtio_pci virtio_blk ext4" \
			>"$1/etc/initramfs-tools/hooks/f2-qemu"
		chmod 755 "$1/etc/initramfs-tools/hooks/f2-qemu"' \
	--customize-hook='echo "'"$security_line"'" >"$1/etc/apt/sources.list.d/security.list"' \
	--customize-hook='chroot "$1" sh -ec "
		krel=\$(cd /lib/modules && ls | sort -V | tail -n 1)
		abi=\${krel%-amd64}
		apt-get -q update
		mkdir -p /var/cache/f2-debs-series
		apt-get clean
		apt-get -q install -y --download-only linux-image-amd64 linux-headers-amd64
		# none when the point release is already the newest ABI (the
		# guest then says SKIP); a move that fails stops the image (sh -e)
		for d in /var/cache/apt/archives/*.deb; do
			[ -e \$d ] || continue
			mv \$d /var/cache/f2-debs-series/
		done
		cd /var/cache/f2-debs-series
		for d in linux-image-*.deb; do
			[ -e \$d ] || continue
			dpkg-deb -c \$d | sed -n \"s|.* ./boot/vmlinuz-||p\"
		done >/var/cache/f2-debs-series/KREL
		mkdir -p /var/cache/f2-efi /var/cache/f2-debs
		cd /var/cache/f2-efi
		'"$get_efi"'
		cd /var/cache/f2-debs
		apt-get -q download linux-image-\$abi-cloud-amd64 \
			linux-headers-\$abi-cloud-amd64
		echo \$krel >/var/cache/f2-debs/KREL
		echo \$abi-cloud-amd64 >/var/cache/f2-debs/CLOUD_KREL
		apt-get clean
		mkdir -p /var/cache/f2-debs-upgrade
		: >/var/cache/f2-debs-upgrade/KREL
		[ -z \"'"$upgrade"'\" ] && exit 0
		apt-get -q install -y --download-only '"$upgrade"'
		mv /var/cache/apt/archives/*.deb /var/cache/f2-debs-upgrade/
		cd /var/cache/f2-debs-upgrade
		for d in linux-image-*.deb; do
			dpkg-deb -c \$d | sed -n \"s|.* ./boot/vmlinuz-||p\"
		done >/var/cache/f2-debs-upgrade/KREL
		apt-get clean"' \
	"$suite" "$root" "${sources[@]}" \
	>"$dir/mmdebstrap.log" 2>&1 ||
	{ tail -n 30 "$dir/mmdebstrap.log" >&2; die "mmdebstrap failed: $dir/mmdebstrap.log"; }

krel=$(cat "$root/var/cache/f2-debs/KREL")
efi=
if [ "$suite" = bookworm ]; then
	efi=$dir/efi
	rm -rf "$dir/efi" "$dir/efi-x"
	mkdir -p "$dir/efi"
	for deb in "$root"/var/cache/f2-efi/*.deb; do
		dpkg-deb -x "$deb" "$dir/efi-x" || die "cannot unpack $deb"
		dpkg-deb -f "$deb" Package Version | paste -sd' ' >>"$dir/efi/VERSIONS"
	done
	cp "$dir/efi-x/usr/lib/shim/shimx64.efi.signed" "$dir/efi/shimx64.efi" &&
		cp "$dir/efi-x/usr/lib/shim/mmx64.efi.signed" "$dir/efi/mmx64.efi" &&
		cp "$dir/efi-x/usr/lib/grub/x86_64-efi-signed/grubx64.efi.signed" \
			"$dir/efi/grubx64.efi" || die "no signed shim or GRUB in the packages"
	rm -rf "$dir/efi-x"
fi
rm -rf "$root/var/cache/f2-efi"
cloud=$(cat "$root/var/cache/f2-debs/CLOUD_KREL")
upgrade=$(cat "$root/var/cache/f2-debs-upgrade/KREL")
series=$(cat "$root/var/cache/f2-debs-series/KREL")
[ "$(echo "$series" | wc -w)" -le 1 ] ||
	die "more than one kernel in the series upgrade: '$series'"
[ "$suite" = bullseye ] || [ "$(echo "$upgrade" | wc -w)" = 1 ] ||
	die "not one kernel to upgrade to: '$upgrade'"
echo "$name" >"$root/etc/hostname"
echo '/dev/vda / ext4 rw,errors=remount-ro 0 1' >"$root/etc/fstab"
# No password, no login prompt: the stage's service is the only user.
ln -sf /dev/null "$root/etc/systemd/system/getty@tty1.service"
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS0.service"
ln -sf /dev/null "$root/etc/systemd/system/serial-getty@ttyS1.service"
cat >"$root/etc/systemd/system/f2-stage.service" <<'UNIT'
[Unit]
Description=fchmodat2-backport: the real-system stage
After=multi-user.target
Wants=multi-user.target
ConditionPathExists=/dev/disk/by-label/F2

[Service]
Type=oneshot
ExecStart=/bin/sh -c 'mkdir -p /f2 && mount -o ro LABEL=F2 /f2 && exec /bin/bash /f2/guest.sh'
StandardOutput=tty
StandardError=tty
TTYPath=/dev/ttyS0
TimeoutStartSec=infinity

[Install]
WantedBy=multi-user.target
UNIT
ln -sf /etc/systemd/system/f2-stage.service \
	"$root/etc/systemd/system/multi-user.target.wants/f2-stage.service"
cp "$root/boot/vmlinuz-$krel" "$dir/vmlinuz"
cp "$root/boot/initrd.img-$krel" "$dir/initrd.img"
truncate -s 4G "$dir/rootfs.img"
mke2fs -q -t ext4 -L "$name" -d "$root" "$dir/rootfs.img" ||
	die "mke2fs -d failed"
rm -rf "$root"
cat >"$env.new" <<ENV
RELEASE=$suite
ROOTFS=$dir/rootfs.img
VMLINUZ=$dir/vmlinuz
INITRD=$dir/initrd.img
KREL=$krel
CLOUD_KREL=$cloud
SERIES_KREL=$series
UPGRADE_KREL=$upgrade
EFI=$efi
ENV
mv "$env.new" "$env"
echo "$env"
