#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Guest side of the oops lane (issue 15 #1): a task oopses inside the
# module's fchmodat2 handler (f2_oops.ko makes notify_change() dereference NULL for
# the task named f2-oops-me) and so never returns through the hook.
# Unloading must not wait for it: the module takes every task that exits
# inside its counted region out of the count, whatever killed it. Booted
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
# The dead task was inside the counted region. If the module still counted
# it, rmmod would wait forever, uninterruptibly: give it 30 s, then fail
# and power off with it still waiting.
start=$(date +%s)
rmmod fchmodat2 &
pid=$!
while kill -0 "$pid" 2>/dev/null && [ $(($(date +%s) - start)) -lt 30 ]; do
	sleep 1
done
if kill -0 "$pid" 2>/dev/null; then
	rc="still waiting"
else
	wait "$pid"
	rc=$?
fi
took=$(($(date +%s) - start))
[ "$rc" = 0 ] && [ "$took" -lt 10 ]
result unload $? "rmmod fchmodat2 after a task died inside it: exit $rc, ${took} s"
! grep -q '^fchmodat2 ' /proc/modules && [ -r /proc/modules ]
step $? "fchmodat2 is gone from /proc/modules"
! dmesg | grep -q 'unload waits for'
step $? "the unload waited for no task"
./f2call /tmp/oops/other 0600 | grep -q ENOSYS &&
	[ "$(stat -c %a /tmp/oops/other)" = 640 ]
step $? "452 is ENOSYS again, the mode unchanged"

echo "1..$steps"
finish
