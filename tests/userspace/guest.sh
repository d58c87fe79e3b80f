#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The userspace scenario, inside the VM guest (busybox), one boot per
# kernel. /f2 holds what run-vm.sh staged: the programs built with the
# kernel's own Debian release (/f2/release: bullseye for 5.10, bookworm for
# 6.1), with that release's glibc and libkmod in /f2/lib (installed below
# as this guest's), the module installed in /f2/mods, and a module built
# for another kernel. Most steps run without /proc, as in a chroot or early
# boot. Every step prints a TAP line.

cd /f2 || exit 1
# shellcheck source=tests/guest/steps.sh
. ./steps.sh
# two online vCPUs; preempt=full (make check-full's 6.1-full) in effect
preemption_checks

krel=$(uname -r)
moddir=/lib/modules/$krel
out=/tmp/out

# expect_exit CODE DESCRIPTION COMMAND...: COMMAND's output (as comments
# and in $out), and a TAP line: did it exit CODE?
expect_exit() {
	want=$1 what=$2
	shift 2
	"$@" >"$out" 2>&1
	got=$?
	sed 's/^/# /' "$out"
	[ "$got" = "$want" ]
	step $? "$what: exit $want (got $got)"
}
# expect_tap DESCRIPTION COMMAND...: a TAP program; its lines count too
expect_tap() {
	what=$1
	shift
	"$@" >"$out" 2>&1
	got=$?
	cat "$out"
	[ "$got" = 0 ]
	step $? "$what: exit 0 (got $got)"
}
# said PATTERN DESCRIPTION: the last command's output has PATTERN
said() {
	grep -q -e "$1" "$out"
	step $? "$2"
}

release=$(cat /f2/release)
echo "# $release's glibc, libkmod and programs (built there) as this guest's"
# x86_64 or arm64: the dynamic loader where the programs look for it, the
# libraries in the multiarch directory; the module's hook site
case $(uname -m) in
aarch64) loader=/lib/ld-linux-aarch64.so.1 libdir=/lib/aarch64-linux-gnu
	 hook=sys_ni_syscall ;;
*) loader=/lib64/ld-linux-x86-64.so.2 libdir=/lib/x86_64-linux-gnu
   hook='syscall_trace_enter*' ;;
esac
mkdir -p "${loader%/*}" "$libdir"
cp "/f2/lib/${loader##*/}" "$loader" &&
	cp /f2/lib/*.so* "$libdir/"
step $? "install ${loader##*/}, libc.so.6, libkmod.so.2 and their libraries"
export LD_LIBRARY_PATH=/f2
./lchmod_prog /tmp >/dev/null 2>&1
[ $? -le 4 ]
step $? "a dynamic program runs on them"
preload=/f2/libfchmodat2-preload.so

umount /proc
[ ! -e /proc/self ]
step $? "/proc is not mounted"

# What the release's own glibc does without the shim: Debian 12's 2.36
# emulates lchmod() through /proc (EOPNOTSUPP without it; 3 of the 4 calls
# differ from glibc 2.39 on Linux 6.6); Debian 11's 2.31 has no lchmod()
# at all (a stub: ENOSYS; all 4 differ).
case $release in
bullseye) libc_differ=4 libc_lchmod='ENOSYS' libc_name="glibc 2.31's lchmod() (a stub)" ;;
*) libc_differ=3 libc_lchmod='EOPNOTSUPP' libc_name="glibc 2.36's lchmod() without /proc" ;;
esac
echo "# without the module: system call 452 is ENOSYS"
expect_exit "$libc_differ" "lchmod_prog without the shim" ./lchmod_prog /tmp
said "^lchmod(file, 0600): $libc_lchmod, file 0644" \
	"$libc_name of a regular file fails: $libc_lchmod, mode unchanged"
cp "$out" /tmp/without-shim
LD_PRELOAD=$preload ./lchmod_prog /tmp >/tmp/with-shim 2>&1
cmp -s /tmp/without-shim /tmp/with-shim
step $? "with LD_PRELOAD=libfchmodat2-preload.so and 452 ENOSYS: exactly the same results"
expect_tap "libtest --expect=enosys --no-proc (emulation without /proc fails as glibc's)" \
	./libtest --expect=enosys --no-proc
expect_tap "libtest-static --expect=enosys --no-proc" \
	./libtest-static --expect=enosys --no-proc
mount -t proc proc /proc
expect_tap "libtest --expect=enosys, /proc mounted (the emulation works)" \
	./libtest --expect=enosys
umount /proc

echo "# fchmodat2ctl, module not installed"
expect_exit 5 "fchmodat2ctl status, nothing installed" ./fchmodat2ctl status
said 'not available (ENOSYS)' "status says: not available (ENOSYS)"
said 'loadable:  no: not installed for this kernel' "status says: not installed"
expect_exit 1 "fchmodat2ctl load, nothing installed" ./fchmodat2ctl load
said "is not installed for kernel $krel" "load says: not installed for this kernel"

echo "# fchmodat2ctl, a module built for another kernel installed"
mkdir -p /lib/modules && cp -a /f2/mods/lib/modules/. /lib/modules/ &&
	cp /f2/fchmodat2-other.ko "$moddir/updates/fchmodat2.ko"
step $? "install the other kernel's module as $moddir/updates/fchmodat2.ko"
expect_exit 5 "fchmodat2ctl status" ./fchmodat2ctl status
said 'built for another kernel' "status says: built for another kernel"
expect_exit 1 "fchmodat2ctl load" ./fchmodat2ctl load
said 'built for another kernel' "load says: built for another kernel"
[ ! -e /sys/module/fchmodat2 ]
step $? "the module is not loaded"

echo "# fchmodat2ctl, the module built for this kernel installed"
cp /f2/fchmodat2.ko "$moddir/updates/fchmodat2.ko"
step $? "install fchmodat2.ko as $moddir/updates/fchmodat2.ko"

echo "# fchmodat2ctl, another ftrace user owns the module's hook site"
insmod /f2/f2_ftrace_user.ko ipmodify=1 func="$hook"
step $? "insmod f2_ftrace_user.ko ipmodify=1 func=$hook (an IP-modifying ftrace user, as a livepatch is)"
expect_exit 1 "fchmodat2ctl load, hook site taken" ./fchmodat2ctl load
said 'already hooked by another ftrace user (a livepatch?) \[EBUSY\]' \
	"load says: already hooked by another ftrace user"
[ ! -e /sys/module/fchmodat2 ]
step $? "the module is not loaded"
rmmod f2_ftrace_user
step $? "rmmod f2_ftrace_user"

expect_exit 4 "fchmodat2ctl status before load" ./fchmodat2ctl status
said 'not available (ENOSYS)' "status says: not available"
said 'loadable:  yes' "status says: loadable"
expect_exit 4 "fchmodat2ctl --json status" ./fchmodat2ctl --json status
said '"state": "absent".*"loadable": true.*"exit": 4}$' \
	"status --json: absent, loadable, exit 4"
expect_exit 4 "fchmodat2ctl check before load" ./fchmodat2ctl check
said '^fchmodat2ctl: system call 452 is not available on this kernel (ENOSYS): "fchmodat2ctl load" loads the module' \
	"check says: not available, and that load loads the module"
expect_exit 4 "fchmodat2ctl --json check before load" ./fchmodat2ctl --json check
said '"probe": "ENOSYS", "reason": "\\"fchmodat2ctl load\\" loads the module", "result": "absent", "exit": 4}$' \
	"check --json: absent, loadable, exit 4"

expect_exit 0 "fchmodat2ctl load" ./fchmodat2ctl load
said '^fchmodat2ctl: module loaded (version [0-9.]*): system call 452 served through ' \
	"load says: loaded, its version and mechanism"
expect_exit 0 "fchmodat2ctl status, module loaded (available: exit 0)" ./fchmodat2ctl status
said 'served by the fchmodat2 module' "status says: served by the module"
said "  module:    loaded, version [0-9.]*, through .*${hook%\*}" \
	"status shows the module's version and mechanism"
said '  calls:     [0-9]* served, [0-9]* refused' "status shows the counters"
served=$(cat /sys/module/fchmodat2/calls_served)
refused=$(cat /sys/module/fchmodat2/calls_refused)
expect_exit 0 "fchmodat2ctl check, module loaded" ./fchmodat2ctl check
[ "$(grep -c '^ok ' "$out")" = 4 ]
step $? "check: 4 of 4 checks pass"
said '^fchmodat2ctl: system call 452 behaves' "check says: behaves"
# check: 2 served (file, O_PATH); 2 refused (symlink, flags), and the
# probe's own refused call
[ "$(cat /sys/module/fchmodat2/calls_served)" = $((served + 2)) ] &&
	[ "$(cat /sys/module/fchmodat2/calls_refused)" = $((refused + 3)) ]
step $? "the counters count check's calls: served $served -> $(cat /sys/module/fchmodat2/calls_served), refused $refused -> $(cat /sys/module/fchmodat2/calls_refused)"
expect_exit 0 "fchmodat2ctl --json check, module loaded" ./fchmodat2ctl --json check
[ "$(grep -o '"ok": true' "$out" | wc -l)" = 4 ] && ! grep -q '"ok": false' "$out"
step $? "check --json: 4 of 4 checks ok"
said '"probe": "EINVAL".*"result": "behaves", "exit": 0}$' "check --json: behaves, exit 0"
expect_exit 0 "fchmodat2ctl --json status (available: exit 0)" ./fchmodat2ctl --json status
said '"state": "module".*"loaded": true, "version": "[0-9.]*", "mechanism": "[^"]*", "calls_served": [0-9]*, "calls_refused": [0-9]*' \
	"status --json: module, version, mechanism, counters"
expect_exit 0 "fchmodat2ctl load, already loaded" ./fchmodat2ctl load
said '^fchmodat2ctl: the module is already loaded' "load says: already loaded"

echo "# the preload shim and the library, module loaded, /proc not mounted"
expect_exit "$libc_differ" "lchmod_prog without the shim" ./lchmod_prog /tmp
said "^lchmod(file, 0600): $libc_lchmod, file 0644" \
	"$libc_name still fails: it does not know system call 452"
expect_exit 0 "LD_PRELOAD=libfchmodat2-preload.so lchmod_prog" \
	env LD_PRELOAD=$preload ./lchmod_prog /tmp
said '^lchmod(file, 0600): 0, file 0600, symlink 0777: ok' \
	"with the shim, lchmod() of a regular file works without /proc"
said '^lchmod(link, 0640): EOPNOTSUPP, file 0600, symlink 0777: ok' \
	"with the shim, lchmod() of a symlink is refused and leaves it unchanged"
expect_tap "libtest --expect=syscall --no-proc (fchmodat2_compat works through 452)" \
	./libtest --expect=syscall --no-proc
mount -t proc proc /proc
expect_tap "libtest --expect=syscall, /proc mounted" ./libtest --expect=syscall
expect_tap "libtest-static --expect=syscall, /proc mounted" \
	./libtest-static --expect=syscall
umount /proc

echo "# unload"
expect_exit 0 "fchmodat2ctl unload" ./fchmodat2ctl unload
said '^fchmodat2ctl: module unloaded: system call 452 is ENOSYS again' "unload says: ENOSYS again"
[ ! -e /sys/module/fchmodat2 ]
step $? "the module is unloaded"
expect_exit 4 "fchmodat2ctl status after unload" ./fchmodat2ctl status
said 'loadable:  yes' "status says: loadable again"
expect_exit 0 "fchmodat2ctl unload, not loaded" ./fchmodat2ctl unload
said '^fchmodat2ctl: the module is not loaded' "unload says: not loaded"

echo "# lockdown: an unsigned module is refused"
mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
if [ -w /sys/kernel/security/lockdown ] &&
	echo integrity >/sys/kernel/security/lockdown; then
	expect_exit 5 "fchmodat2ctl status, locked down" ./fchmodat2ctl status
	said 'unsigned, and the kernel is locked down (integrity)' \
		"status says: unsigned and locked down"
	expect_exit 1 "fchmodat2ctl load, locked down" ./fchmodat2ctl load
	said 'unsigned module refused: Secure Boot or lockdown (lockdown: integrity)' \
		"load says: unsigned module refused by Secure Boot or lockdown"
	[ ! -e /sys/module/fchmodat2 ]
	step $? "the module is not loaded"
	# signed, by a key the kernel does not trust (DKMS's before it is
	# enrolled): lockdown refuses it with the same EPERM
	cp /f2/fchmodat2-signed.ko "$moddir/updates/fchmodat2.ko"
	step $? "install a copy signed by a key no kernel trusts"
	expect_exit 1 "fchmodat2ctl load, signed by an untrusted key, locked down" ./fchmodat2ctl load
	said 'lockdown (lockdown: integrity): the module is signed, but by a key this kernel does not trust: enroll it (DKMS.s: mokutil --import /var/lib/dkms/mok.pub).*\[EPERM\]' \
		"load says: signed by a key the kernel does not trust, enrol it (EPERM)"
	[ ! -e /sys/module/fchmodat2 ]
	step $? "the module is not loaded"
else
	step_skipped "no writable /sys/kernel/security/lockdown" \
		"lockdown"
fi

mount -t proc proc /proc
kernel_log_checks
finish
