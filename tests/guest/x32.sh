#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM guest booted with syscall.x32=y (Debian's kernels
# build x32 in but serve it only with that parameter): the test program
# built with -mx32 runs, natively on a kernel with fchmodat2, through the
# module otherwise; audit's records of x32's calls (subsys_audit x32). /f2/x32-mode
# says "module" or "native".

cd /f2 || exit 1
. ./steps.sh

preemption_checks
mode=$(cat x32-mode)
case " $(cat /proc/cmdline) " in *" syscall.x32=y "*) x=0 ;; *) x=1 ;; esac
step $x "booted with syscall.x32=y"
: >/tmp/x32file
chmod 0644 /tmp/x32file

if [ "$mode" = module ]; then
	./f2call -x32 /tmp/x32file 600 >/tmp/out 2>&1
	grep -q '= -1 ENOSYS' /tmp/out && [ "$(stat -c %a /tmp/x32file)" = 644 ]
	step $? "x32's 452 is ENOSYS before the module is loaded: $(cat /tmp/out)"
	./fchmodat2_testx32 --probe | grep -q 'ENOSYS'
	step $? "the x32 test program runs (x32 is served) and sees ENOSYS"
	insmod ./fchmodat2.ko
	result load $? "insmod fchmodat2.ko"
fi
./f2call -x32 /tmp/x32file 600 >/tmp/out 2>&1
grep -q '= 0$' /tmp/out && [ "$(stat -c %a /tmp/x32file)" = 600 ]
step $? "x32's 452 from a 64-bit task is served: $(cat /tmp/out)"
echo "# the test program, built with -mx32"
run ./fchmodat2_testx32
echo "# audit and x32's numbers: no rule matches them, on 6.12 as with the module"
mkdir -p /tmp/audit && mount -t tmpfs tmpfs /tmp/audit
run ./subsys_audit -d /tmp/audit x32
umount /tmp/audit
if [ "$mode" = module ]; then
	rmmod fchmodat2
	result unload $? "rmmod fchmodat2"
	./f2call -x32 /tmp/x32file 644 >/tmp/out 2>&1
	grep -q '= -1 ENOSYS' /tmp/out && [ "$(stat -c %a /tmp/x32file)" = 600 ]
	step $? "x32's 452 is ENOSYS again after rmmod: $(cat /tmp/out)"
fi

kernel_log_checks
finish
