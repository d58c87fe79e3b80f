#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The subsystem scenario in the VM guest (busybox), one boot per kernel.
# /f2/subsys-mode says "module" (5.10, 6.1: load fchmodat2.ko first) or
# "native" (6.12: the kernel's own fchmodat2, the oracle). The drives
# carry serial numbers subsys-ext4, subsys-xfs and subsys-btrfs (run-vm.sh made them).
# /f2/trixie holds Debian 13's loader, glibc, chmod, strace and
# apparmor_parser.
# Every step prints a TAP line; suite.sh frames each program's run.

cd /f2 || exit 1
. ./steps.sh
. ./suite.sh
# two online vCPUs; preempt=full (make check-full's 6.1-full) in effect
preemption_checks
# shellcheck disable=SC2034 # used by suite.sh
SUBSYS_BIN=/f2
mode=$(cat subsys-mode)

bad=
for m in virtio_pci virtio_blk ext4 xfs btrfs overlay nfsd nfsv4; do
	modprobe "$m" || bad="$bad $m"
done
[ -z "$bad" ]
step $? "modprobe virtio_pci virtio_blk ext4 xfs btrfs overlay nfsd nfsv4${bad:+ (failed:$bad)}"

# /dev/vdX of the drive with serial subsys-FS
drive() {
	for d in /sys/block/vd*; do
		[ "$(cat "$d/serial" 2>/dev/null)" = "subsys-$1" ] &&
			echo "/dev/${d##*/}" && return 0
	done
	return 1
}

mkdir -p /mnt/tmpfs
mount -t tmpfs -o mode=0755,size=64m subsys-tmpfs /mnt/tmpfs
step $? "mount tmpfs on /mnt/tmpfs"
fss=tmpfs
for fs in ext4 xfs btrfs; do
	mkdir -p "/mnt/$fs"
	i=0
	until dev=$(drive "$fs") || [ $i = 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	mount -t "$fs" "$dev" "/mnt/$fs"
	step $? "mount $fs ($dev) on /mnt/$fs"
	eval "dev_$fs=$dev"
	grep -q " /mnt/$fs $fs " /proc/mounts && fss="$fss $fs"
done

mount -t securityfs securityfs /sys/kernel/security
step $? "mount securityfs"
[ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y ]
step $? "AppArmor is enabled"

if [ "$mode" = module ]; then
	./fchmodat2_test --probe | grep -q 'ENOSYS'
	step $? "452 returns ENOSYS before the module is loaded"
	echo "# ===== real clients without the module"
	subsys_clients_sets /mnt/tmpfs /f2/trixie -nomod
	subsys_audit_nomod_sets before /mnt/tmpfs
	insmod ./fchmodat2.ko
	result load $? "insmod fchmodat2.ko"
else
	[ -r /proc/modules ] && ! grep -q '^fchmodat2 ' /proc/modules
	step $? "no module: the kernel's own fchmodat2"
fi
./fchmodat2_test --probe | grep -q 'available'
step $? "452 is available"

# unload WHEN: rmmod, watched: it must finish within 30 s (a task the
# module counts as inside system call entry and that never comes back
# would keep it waiting for ever, in uninterruptible sleep).
unload() {
	rmmod fchmodat2 &
	pid=$!
	i=0
	while kill -0 "$pid" 2>/dev/null && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 "$pid" 2>/dev/null; then
		echo "# $(dmesg | grep 'fchmodat2: unload waits' | tail -n 1)"
		result unload 1 "rmmod fchmodat2 $1: still waiting after 30 s"
	else
		wait "$pid"
		result unload $? "rmmod fchmodat2 $1"
	fi
}

for fs in $fss; do
	echo "# ===== $fs"
	eval "subsys_fs_sets $fs /mnt/$fs \${dev_$fs:-}"
done
echo "# ===== magic links, overlayfs"
subsys_tmpfs_sets vfs /mnt/tmpfs
echo "# ===== ptrace"
subsys_tmpfs_sets ptrace /mnt/tmpfs
subsys_strace_sets /mnt/tmpfs /f2/trixie
echo "# ===== real clients: Debian 13's glibc and chmod, /proc not mounted"
subsys_clients_sets /mnt/tmpfs /f2/trixie
echo "# ===== AppArmor"
subsys_lsm_sets /mnt/tmpfs /f2/trixie
echo "# ===== audit"
subsys_tmpfs_sets audit /mnt/tmpfs
echo "# ===== NFS"
subsys_tmpfs_sets nfs /mnt/tmpfs

if [ "$mode" = module ]; then
	served=$(cat /sys/module/fchmodat2/calls_served)
	refused=$(cat /sys/module/fchmodat2/calls_refused)
	[ "$served" -gt 100 ] && [ "$refused" -gt 100 ]
	step $? "the module answered: calls_served=$served calls_refused=$refused"
	unload "after the filesystem, credentials, ptrace, clients, AppArmor, audit and NFS sets"
	insmod ./fchmodat2.ko
	step $? "insmod fchmodat2.ko again"
fi
echo "# ===== seccomp"
subsys_tmpfs_sets seccomp /mnt/tmpfs
if [ "$mode" = module ]; then
	unload "after the seccomp sets (tasks killed by seccomp in system call entry)"
	# the module took 452 out of audit's class again
	subsys_audit_nomod_sets rmmod /mnt/tmpfs
fi
for fs in $fss; do
	umount "/mnt/$fs"
	step $? "umount /mnt/$fs"
done

kernel_log_checks
finish
