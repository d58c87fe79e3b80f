#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The stress lane, inside the VM guest (busybox), with the module and the
# static programs in /f2 and the counts in /f2/stress.conf (TOGGLES,
# CYCLES, ROUNDS; LOADED seconds; PARKED, the unload_test cases of step
# 3). On parallel vCPUs, while four threads make system calls:
#   1. the stock kernel's sys_enter tracepoint toggled TOGGLES times (does
#      the emulator run code that another CPU patches correctly?);
#   2. CYCLES load/unload cycles of the module; then LOADED s with the module
#      loaded throughout (no ENOSYS accepted, calls served per ABI);
#   3. ROUNDS times, rmmod while a call is parked: on a userfaultfd page
#      inside fchmodat2 (refused, in use, until it returns; and the same
#      on cpu1 while cpu1 goes off and on line), and strangers
#      held for longer than rmmod may take (rmmod must not wait): 452 and
#      getpid stopped by ptrace at system call entry, getppid held by a
#      seccomp USER_NOTIF supervisor, a PTRACE_SYSEMU tracee.
# Any wrong answer, soft lockup, hung task, RCU stall, WARN, BUG or oops
# fails it; each step has a deadline.

cd /f2 || exit 1
. ./steps.sh
. ./stress.conf

preemption_checks
# Hung tasks are reported after 30 s, not 120 s (the VM's deadline is
# shorter than that times the number of steps).
[ -w /proc/sys/kernel/hung_task_timeout_secs ] &&
	echo 30 >/proc/sys/kernel/hung_task_timeout_secs
echo "# hung task timeout: $(cat /proc/sys/kernel/hung_task_timeout_secs 2>/dev/null || echo none), soft lockup threshold: $(cat /proc/sys/kernel/watchdog_thresh)"
mount -t tracefs nodev /sys/kernel/tracing
step $? "mount tracefs"

echo "# 1. the stock kernel, no module: sys_enter toggled under load"
run ./stress toggle "$TOGGLES" /tmp

echo "# 2. $CYCLES load/unload cycles under load"
run ./stress cycles "$CYCLES" ./fchmodat2.ko /tmp

echo "# 2b. the module loaded throughout: only mainline's answers, every ABI served"
insmod ./fchmodat2.ko
step $? "insmod"
run ./stress loaded "$LOADED" /tmp
# arm64: the same with AArch32 callers (arm64's compat ABI, a path of its
# own through the module's hook)
if [ "$(uname -m)" = aarch64 ]; then
	run ./stress32 loaded "$LOADED" /tmp
fi
rmmod fchmodat2
step $? "rmmod"

echo "# 3. $ROUNDS rounds of rmmod while a call is parked, under load: $PARKED"
./stress calls /tmp &
calls=$!
r=0
while [ "$r" -lt "$ROUNDS" ]; do
	r=$((r + 1))
	for c in $PARKED; do
		insmod ./fchmodat2.ko
		step $? "round $r: insmod"
		run ./unload_test "$c" /tmp
	done
done
# (unload_test hotplug puts cpu1 back; if it failed to, the rest runs on
# both CPUs all the same)
echo 1 >/sys/devices/system/cpu/cpu1/online 2>/dev/null
kill -TERM "$calls"
wait "$calls"
step $? "the callers of step 3 only ever got mainline's answer or ENOSYS"

./fchmodat2_test --probe | grep -q 'ENOSYS'
step $? "452 returns ENOSYS at the end"
[ -r /proc/modules ] && ! grep -q '^fchmodat2 ' /proc/modules
step $? "the module is unloaded"
kernel_log_checks
finish
