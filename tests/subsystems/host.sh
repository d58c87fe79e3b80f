#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# host.sh BINDIR IMGDIR TRIXIE: the subsystem scenario natively on this
# machine's kernel (native fchmodat2: the oracle), on the same filesystem
# types as in the VM: a tmpfs, and IMGDIR/{ext4,xfs,btrfs}.img attached to
# loop devices; Debian 13's glibc and chmod from TRIXIE. No AppArmor set:
# this machine's LSM policy is not ours to change. run-vm.sh runs it in a
# private mount namespace (unshare -m), so nothing it mounts is seen
# outside; it detaches its loop devices itself. Root only. Same TAP
# framing as guest.sh.

# shellcheck disable=SC2034 # used by suite.sh
SUBSYS_BIN=$1
img=$2
trixie=$3
. "$(dirname "$0")/../guest/steps.sh"
. "$(dirname "$0")/suite.sh"

loops=
cleanup() {
	for fs in tmpfs ext4 xfs btrfs; do
		umount "$img/mnt/$fs" 2>/dev/null
	done
	for l in $loops; do
		losetup -d "$l"
	done
}
trap cleanup EXIT

"$SUBSYS_BIN/fchmodat2_test" --probe | grep -q 'available'
step $? "452 is native on $(uname -r)"
# Not every machine executes i386 programs: then the 32-bit sets are
# compared with Debian 13's 6.12 in QEMU only.
SUBSYS_BITS=64
"$SUBSYS_BIN/fchmodat2_test32" --probe >/dev/null 2>&1 && SUBSYS_BITS="64 32"
echo "# subsys-host-bits $SUBSYS_BITS"

mkdir -p "$img/mnt/tmpfs"
mount -t tmpfs -o mode=0755,size=64m subsys-tmpfs "$img/mnt/tmpfs"
step $? "mount tmpfs"
fss=tmpfs
for fs in ext4 xfs btrfs; do
	mkdir -p "$img/mnt/$fs"
	# without autoclear: subsys_fs unmounts and mounts the device again
	dev=$(losetup -f --show "$img/$fs.img") && loops="$loops $dev" &&
		mount -t "$fs" "$dev" "$img/mnt/$fs"
	step $? "mount $fs ($dev) on $img/mnt/$fs"
	eval "dev_$fs=$dev"
	grep -q " $img/mnt/$fs $fs " /proc/mounts && fss="$fss $fs"
done

for fs in $fss; do
	echo "# ===== $fs"
	eval "subsys_fs_sets $fs $img/mnt/$fs \${dev_$fs:-}"
done
echo "# ===== magic links, overlayfs"
subsys_tmpfs_sets vfs "$img/mnt/tmpfs"
echo "# ===== ptrace"
subsys_tmpfs_sets ptrace "$img/mnt/tmpfs"
subsys_strace_sets "$img/mnt/tmpfs" "$trixie"
echo "# ===== real clients: Debian 13's glibc and chmod, /proc not mounted"
subsys_clients_sets "$img/mnt/tmpfs" "$trixie"
echo "# ===== seccomp"
subsys_tmpfs_sets seccomp "$img/mnt/tmpfs"

finish
