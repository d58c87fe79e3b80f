#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the oops lane (issue 15 #1): a task oopses inside the
# module's fchmodat2 handler (f2_oops.ko makes notify_change() dereference NULL for
# the task named f2-oops-me) and so never returns through the hook. It
# dies holding the module reference its call took (issue 22 #2): the
# module stays in use, as any module whose code oopsed with a reference
# held, and keeps serving everybody else; rmmod is refused at once. Booted
# without oops=panic (run.sh -O), the only kernel report allowed is that
# one oops, which run.sh checks is there.
. ./steps.sh

echo "TAP version 13"
preemption_checks
# A task in D state for 30 s is reported (and fails the run).
[ -w /proc/sys/kernel/hung_task_timeout_secs ] &&
	echo 30 >/proc/sys/kernel/hung_task_timeout_secs
insmod ./fchmodat2.ko
result load $? "insmod fchmodat2.ko"
insmod ./f2_oops.ko comm=f2-oops-me
step $? "insmod f2_oops.ko comm=f2-oops-me"

# Its own tmpfs: the victim's inode lock stays held by the dead task, so
# nothing but stat may touch that file again.
mkdir -p /tmp/oops && mount -t tmpfs tmpfs /tmp/oops &&
	touch /tmp/oops/victim /tmp/oops/other &&
	chmod 600 /tmp/oops/victim /tmp/oops/other &&
	cp ./f2call /tmp/f2-oops-me
step $? "a scratch tmpfs with two files, mode 0600"

/tmp/f2-oops-me /tmp/oops/victim 0644
rc=$?
# killed by its oops: SIGKILL (137) after a page fault on x86, SIGSEGV
# (139) on arm64
[ "$rc" = 137 ] || [ "$rc" = 139 ]
step $? "the task named f2-oops-me died of its oops inside fchmodat2 (exit status $rc)"
[ "$(dmesg | grep -c 'f2_oops: f2-oops-me (pid [0-9]*) oopses in notify_change')" = 1 ] &&
	dmesg | grep -q 'Modules linked in:.*f2_oops'
step $? "the kernel log has the oops, once"
[ "$(stat -c %a /tmp/oops/victim)" = 600 ]
step $? "the victim's mode is unchanged (0600)"

./f2call /tmp/oops/other 0640 && [ "$(stat -c %a /tmp/oops/other)" = 640 ]
step $? "another task's fchmodat2 is served after the oops (0640)"

rmmod f2_oops
step $? "rmmod f2_oops"
# The dead task holds its reference for good: rmmod must fail at once,
# "in use" (delete_module's EWOULDBLOCK), and leave the module serving.
start=$(date +%s)
rmmod fchmodat2 2>/tmp/rmmod.err
rc=$?
took=$(($(date +%s) - start))
cat /tmp/rmmod.err | sed 's/^/# rmmod: /'
# kmod says "in use"; busybox, here, strerror(EWOULDBLOCK)
[ "$rc" != 0 ] && [ "$took" -lt 5 ] &&
	grep -qE 'in use|Resource temporarily unavailable' /tmp/rmmod.err
result unload $? "rmmod fchmodat2 is refused at once, in use (exit $rc, ${took} s)"
grep -q '^fchmodat2 [0-9]* 1 .* Live ' /proc/modules
step $? "fchmodat2 stays live in /proc/modules, with the dead call's one reference"
./f2call /tmp/oops/other 0600 && [ "$(stat -c %a /tmp/oops/other)" = 600 ]
step $? "fchmodat2 is still served after the refused rmmod (0600)"

echo "1..$steps"
finish
