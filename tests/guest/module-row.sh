#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM guest (busybox), with the module and the static test
# programs in /f2. Every step prints a TAP line; the host counts them all.

cd /f2 || exit 1
. ./steps.sh

preemption_checks

./fchmodat2_test --probe | grep -q 'ENOSYS'
step $? "452 returns ENOSYS before the module is loaded"

# System call numbers wider than 32 bits (x86_64): what a task gets must
# not change when the module is loaded. On 5.10 the fast path dispatches
# all 64 bits (ENOSYS) and the slow path truncates them, and the module
# puts every task on the slow path. Plain, under ptrace, and with the
# sys_enter trace event on (both slow paths without the module).
widenr_all() { # widenr_all SUFFIX
	ev=/sys/kernel/tracing/events/raw_syscalls/sys_enter/enable
	./widenr >"/tmp/widenr.plain.$1" &&
		./widenr ptrace >"/tmp/widenr.ptrace.$1" &&
		echo 1 >"$ev" && ./widenr >"/tmp/widenr.traced.$1"
	r=$?
	echo 0 >"$ev"
	return "$r"
}
if x86_only widenr "wide system call numbers, without the module"; then
	mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	widenr_all without
	step $? "wide system call numbers, without the module (plain, ptrace, traced)"
	sed 's/^/# without the module: /' /tmp/widenr.plain.without
fi

# x32 (x86_64): Debian boots with it off (syscall.x32=y turns it on; the
# x32 boot, tests/guest/x32.sh, tests that): x32's 452 stays ENOSYS.
x32_off() { # x32_off WHEN
	: >/tmp/x32file && chmod 0644 /tmp/x32file &&
		./f2call -x32 /tmp/x32file 600 >/tmp/out 2>&1
	grep -q '= -1 ENOSYS' /tmp/out && [ "$(stat -c %a /tmp/x32file)" = 644 ]
	step $? "x32 off: x32's 452 is ENOSYS $1: $(cat /tmp/out)"
}
x86_only f2call "x32 off, without the module" && x32_off "without the module"

# Audit (issue 22 #1), on every module row, arm64's included:
# file watches and perm rules must log fchmodat2 with mainline's records
# (the program's expectations; the same cases pass on Debian 13's 6.12),
# for 64- and 32-bit callers. After the last unload below ("nomod"), an
# ENOSYS 452 is in no audit class again. Not before the first load: once
# audit has been enabled, every new task has audit's entry work (the slow
# path) for good, and the wide-number comparison above needs a task on
# the fast path without the module (on 5.10 the two paths differ there).
audit_sets() { # audit_sets [nomod]
	mkdir -p /tmp/audit && mount -t tmpfs tmpfs /tmp/audit
	run ./subsys_audit -d /tmp/audit "$@"
	run ./subsys_audit32 -d /tmp/audit "$@"
	umount /tmp/audit
}
# Every number no system call is assigned to, -1, negative and high-bit
# numbers (x32's where x32 is off): the same answers with the module as
# without, 64- and 32-bit (issue 22 #4; tests/nrscan.c).
nrscan_all() { # nrscan_all SUFFIX
	./nrscan >"/tmp/nrscan.64.$1" 2>"/tmp/nrscan.64.$1.n" &&
		./nrscan32 >"/tmp/nrscan.32.$1" 2>"/tmp/nrscan.32.$1.n"
}
nrscan_all without
step $? "nrscan without the module: $(cat /tmp/nrscan.64.without.n); 32-bit: $(cat /tmp/nrscan.32.without.n)"

insmod ./fchmodat2.ko
result load $? "insmod fchmodat2.ko"
x86_only f2call "x32 off, with the module" && x32_off "with the module"
if x86_only widenr "wide system call numbers, with the module"; then
	widenr_all with
	step $? "wide system call numbers, with the module (plain, ptrace, traced)"
	# Every number but 452 and its wide twin gets what it got without the
	# module, and 452 what fchmodat (the kernel's own chmod, called the
	# same way) gets. Where this path truncates the number (getpid's wide
	# twin is getpid, without the module), 452's wide twin is 452: it
	# gets that answer too; where it does not, it is no system call: what
	# it got without the module. All read off this kernel.
	for m in plain ptrace traced; do
		chmod_line=$(sed -n 's/^0x10c: //p' "/tmp/widenr.$m.with")
		if grep -q '^0x100000027: the caller.s pid' "/tmp/widenr.$m.without"; then
			want="0x1000001c4: $chmod_line"
		else
			want=$(grep '^0x1000001c4: ' "/tmp/widenr.$m.without")
		fi
		grep -v -e '^0x1000001c4:' -e '^0x1c4:' "/tmp/widenr.$m.without" >/tmp/widenr.a
		grep -v -e '^0x1000001c4:' -e '^0x1c4:' "/tmp/widenr.$m.with" >/tmp/widenr.b
		diff /tmp/widenr.a /tmp/widenr.b && [ -n "$chmod_line" ] &&
			grep -qxF "0x1c4: $chmod_line" "/tmp/widenr.$m.with" &&
			[ -n "$want" ] && grep -qxF "$want" "/tmp/widenr.$m.with"
		step $? "wide system call numbers ($m): the same answers with the module as without; 452 as fchmodat (${chmod_line:-no line}); ${want:-no line for the wide 452}"
	done
fi
nrscan_all with
for b in 64 32; do
	diff "/tmp/nrscan.$b.without" "/tmp/nrscan.$b.with" >/tmp/nrscan.diff &&
		[ -s "/tmp/nrscan.$b.with" ]
	step $? "every unassigned, negative and high-bit number answers the same with the module as without, $b-bit ($(grep -c . "/tmp/nrscan.$b.with") numbers, $(grep -c ENOSYS "/tmp/nrscan.$b.with") ENOSYS)"
	sed 's/^/# /' /tmp/nrscan.diff | head -n 20
done
dmesg | grep -q 'fchmodat2: version [^ ]* loaded: system call 452 served through '
step $? "the load prints one line with the version and the mechanism"
./fchmodat2_test --probe | grep -q 'available'
step $? "452 is available with the module loaded"
# The hook's ftrace ops are permanent (on x86_64 up to 6.4 through the
# kernel's own direct_ops; 6.5's register_ftrace_direct() drops the flag,
# untested here): ftrace cannot be switched off under it, which would make
# 452 ENOSYS while the module stays loaded.
! (echo 0 >/proc/sys/kernel/ftrace_enabled) 2>/dev/null &&
	[ "$(cat /proc/sys/kernel/ftrace_enabled)" = 1 ] &&
	./fchmodat2_test --probe | grep -q 'available'
step $? "sysctl kernel.ftrace_enabled=0 is refused while the module is loaded; 452 still works"
# (if it was not refused: ftrace back on, for the steps below)
echo 1 >/proc/sys/kernel/ftrace_enabled 2>/dev/null

mainline_selftest fchmodat2_selftest
mainline_selftest fchmodat2_selftest32
echo "# 64-bit test program"
run ./fchmodat2_test
echo "# 32-bit test program"
run ./fchmodat2_test32
audit_sets
raw_syscalls_452


echo "# unload while tasks are parked in system calls"
# rmmod waits for no task that is not inside fchmodat2 itself (issue 22
# #2): strangers held at a tracer's entry stop (452 or getpid), by a
# seccomp supervisor (452 or getppid) or by PTRACE_SYSEMU, for longer than
# rmmod may take; a 452 inside fchmodat2 makes rmmod fail "in use".
for c in ptrace getpid seccomp notif sysemu; do
	run ./unload_test "$c" /tmp
	insmod ./fchmodat2.ko
	step $? "insmod again"
done
for c in uffd killed; do
	run ./unload_test "$c" /tmp
	insmod ./fchmodat2.ko
	step $? "insmod again"
done
# a 452 waiting on a frozen filesystem (FIFREEZE), stopped by SIGSTOP
# there: rmmod refused; thawed, the call completes and the caller stops;
# rmmod succeeds while it stays stopped (ext4 on a loop device)
mkdir -p /mnt/frozen
modprobe loop && modprobe ext4 && [ -f frozen.img ] &&
	mount -t ext4 -o loop frozen.img /mnt/frozen
step $? "an ext4 filesystem to freeze, on a loop device"
run ./unload_test frozen /mnt/frozen
umount /mnt/frozen
step $? "the thawed filesystem unmounts"
insmod ./fchmodat2.ko
step $? "insmod again"
# a 452 waiting inside the break of an NFS client's read delegation
# (nfsd exports a tmpfs, this machine's client mounts it over lo; lo is
# down meanwhile, so the recall reaches no one): rmmod refused; lo up,
# the call completes; rmmod succeeds
mkdir -p /mnt/exported
modprobe nfsd && modprobe nfsv4 && mount -t tmpfs exported /mnt/exported
step $? "modprobe nfsd nfsv4; a tmpfs for nfsd to export"
# the NFS client's and server's notices (level 5 and 6: "server not
# responding", the grace period) on the console for this case
dmesg -n 7
run ./unload_test deleg /mnt/exported
dmesg -n 5
umount /mnt/exported
step $? "the exported tmpfs unmounts (nfsd stopped, its export caches flushed)"
insmod ./fchmodat2.ko
step $? "insmod again"
# rmmod -f (Debian's kernels allow it) while a 452 sleeps inside: the
# unload waits for that call alone. It taints the kernel (R, 8), which
# the log checks below then allow.
run ./unload_test forced /tmp
f2_taint_ok=8
audit_sets nomod

echo "# another ftrace user on syscall_trace_enter"
hook=syscall_trace_enter*
[ "$(uname -m)" = aarch64 ] && hook=sys_ni_syscall
insmod ./f2_ftrace_user.ko ipmodify=1 func="$hook"
step $? "insmod f2_ftrace_user.ko ipmodify=1 func=$hook (an IP-modifying ftrace user)"
refused_next_to "an IP-modifying ftrace user"
rmmod f2_ftrace_user
insmod ./f2_ftrace_user.ko ipmodify=0 func="$hook" && insmod ./fchmodat2.ko
step $? "fchmodat2.ko loads next to a non-IP-modifying ftrace user"
echo "# 64-bit test program, sharing the hook site with another ftrace user"
run ./fchmodat2_test
[ "$(cat /sys/module/f2_ftrace_user/parameters/hits)" -gt 0 ]
step $? "the other ftrace user still sees its calls"
rmmod fchmodat2 && rmmod f2_ftrace_user
step $? "rmmod fchmodat2 and f2_ftrace_user"

echo "# other users of the hooked places: kprobes, BPF, a second direct call"
. ./tracers.sh
tracers_module

# CPU hotplug (issue 23 #4): load with a CPU offline, serve on each CPU
# (the per-CPU count keeps an offline CPU's calls), a calling loop while a
# CPU goes off and on line, a stranger parked in system call entry while a
# CPU goes off and on line (as rmmod runs, and after), a 452 asleep inside
# fchmodat2 on the CPU that goes off line, an unload with a CPU offline,
# and loads and unloads while a CPU goes off and on line.
echo "# CPU hotplug"
cpu_=/sys/devices/system/cpu/cpu1/online
if [ ! -w "$cpu_" ]; then
	step_skipped "cpu1 cannot go offline here (no $cpu_; $(nproc) CPUs)" \
		"CPU hotplug"
else
	echo 0 >"$cpu_" && insmod ./fchmodat2.ko && echo 1 >"$cpu_"
	step $? "insmod with cpu1 offline, then cpu1 online again"
	: >/tmp/hp.f
	served_=/sys/module/fchmodat2/calls_served
	s0_=$(cat "$served_")
	for c_ in 0 1; do
		chmod 0644 /tmp/hp.f
		# a CPU mask: Debian 11's busybox taskset has no -c
		taskset "$((1 << c_))" ./f2call /tmp/hp.f 60"$c_" >/tmp/out 2>&1 &&
			[ "$(stat -c %a /tmp/hp.f)" = 60"$c_" ]
		step $? "452 served on cpu$c_: $(cat /tmp/out)"
	done
	echo 0 >"$cpu_" && s1_=$(cat "$served_")
	r_=$?
	echo 1 >"$cpu_" && [ "$r_" = 0 ] && [ "$s1_" = "$((s0_ + 2))" ]
	step $? "calls_served still counts the call served on cpu1 while cpu1 is off line ($s0_, then ${s1_:-unread})"
	./unload_test loop /tmp &
	loop=$!
	hp_=0
	for i in 1 2 3; do
		sleep 0.3 && echo 0 >"$cpu_" && sleep 0.3 && echo 1 >"$cpu_" &&
			hp_=$((hp_ + 1))
	done
	kill -TERM "$loop" 2>/dev/null
	wait "$loop"
	step $? "a calling loop was served while cpu1 went off and on line 3 times ($hp_ done)"
	[ "$hp_" = 3 ]
	step $? "cpu1 went off and on line 3 times under the loop"
	# from the case's start (its rmmod begins within milliseconds, and
	# takes a fraction of a second), and again while the stranger stays
	# held (8 s)
	(echo 0 >"$cpu_" && sleep 1 && echo 1 >"$cpu_" && sleep 2 &&
		echo 0 >"$cpu_" && sleep 1 && echo 1 >"$cpu_") &
	hot=$!
	echo "# a stranger held in system call entry; cpu1 goes off and on line twice meanwhile"
	run ./unload_test getpid /tmp
	wait "$hot"
	step $? "cpu1 went off and on line as the rmmod ran and while the stranger was held"
	insmod ./fchmodat2.ko
	step $? "insmod again"
	run ./unload_test hotplug /tmp
	insmod ./fchmodat2.ko && echo 0 >"$cpu_" && rmmod fchmodat2 &&
		echo 1 >"$cpu_"
	step $? "insmod, then rmmod with cpu1 offline, then cpu1 online again"
	chmod 0604 /tmp/hp.f
	./f2call /tmp/hp.f 600 >/tmp/out
	grep -q ENOSYS /tmp/out && [ "$(stat -c %a /tmp/hp.f)" = 604 ]
	step $? "452 is ENOSYS after that unload: $(cat /tmp/out)"
	# loads and unloads (ftrace patches the kernel's text on every CPU)
	# for as long as cpu1 goes off and on line 6 times
	rm -f /tmp/hp.done
	(i_=0 r_=0
	 while [ "$i_" -lt 6 ] && [ "$r_" = 0 ]; do
		echo 0 >"$cpu_" && sleep 0.1 && echo 1 >"$cpu_" && sleep 0.1
		r_=$?
		i_=$((i_ + 1))
	 done
	 : >/tmp/hp.done
	 exit "$r_") &
	hot=$!
	n_=0 bad_=0
	until [ -e /tmp/hp.done ]; do
		if insmod ./fchmodat2.ko &&
			./fchmodat2_test --probe | grep -q 'available' &&
			rmmod fchmodat2; then
			n_=$((n_ + 1))
		else
			bad_=1
			break
		fi
	done
	wait "$hot"
	t_=$?
	# (after a failed cycle: the module unloaded, for the steps below)
	[ "$bad_" = 0 ] || rmmod fchmodat2 2>/dev/null
	[ "$bad_" = 0 ] && [ "$n_" -ge 1 ] && [ "$t_" = 0 ]
	step $? "insmod, serve, rmmod cycles while cpu1 went off and on line 6 times: $n_ done$([ "$bad_" = 0 ] || echo ', then one failed') (the toggling exited $t_)"
	# whatever failed above, the rest runs on both CPUs
	echo 1 >"$cpu_" 2>/dev/null
fi

echo "# five load/unload cycles while a task calls 452 in a loop"
./unload_test loop /tmp &
loop=$!
cycles=0
for i in 1 2 3 4 5; do
	# a call in flight holds the module: rmmod says so (EWOULDBLOCK,
	# "Resource temporarily unavailable" from busybox); try again
	insmod ./fchmodat2.ko && sleep 0.2 && {
		n=0
		until rmmod fchmodat2 2>/dev/null || [ "$n" -ge 100 ]; do
			n=$((n + 1)) busy=$((${busy:-0} + 1))
			sleep 0.05
		done
		[ "$n" -lt 100 ]
	} && cycles=$((cycles + 1))
done
[ "$cycles" = 5 ]
step $? "5 insmod/rmmod cycles under a calling loop (rmmod refused ${busy:-0} times, in use by a call in flight)"
kill -TERM "$loop" 2>/dev/null
wait "$loop"
step $? "the calling loop only ever saw 0 and the new mode, or ENOSYS and the old one, and was served"

# Every error path of install (issue 15 #3): a test build (F2_FAULT_INJECT)
# whose install step N fails (fail_at=N) must leave nothing behind: the
# load fails, 452 stays ENOSYS, and the next load works. A probe or hook
# left registered would call freed module text (an oops, or KASAN's report
# on the debug kernel).
n=1
while [ "$n" -le 10 ]; do
	dmesg -c >/dev/null
	if insmod ./fchmodat2-fi.ko fail_at="$n" 2>/dev/null; then
		! dmesg | grep -q "injected failure at install step $n"
		step $? "fail_at=$n: past the last step, the test build loads"
		./fchmodat2_test --probe | grep -q 'available' && rmmod fchmodat2
		step $? "the test build serves 452 and unloads"
		break
	fi
	dmesg | grep -q "injected failure at install step $n" &&
		[ -r /proc/modules ] && ! grep -q '^fchmodat2 ' /proc/modules &&
		./fchmodat2_test --probe | grep -q 'ENOSYS'
	step $? "fail_at=$n: the load fails at install step $n, nothing stays loaded, 452 is ENOSYS"
	n=$((n + 1))
done
[ "$n" -ge 4 ] && [ "$n" -le 10 ]
step $? "every install step failed once ($((n - 1)) steps), then the load succeeded"

# refuses KNOB WHAT PATTERN: the test build loaded with KNOB=1 must refuse
# (modload exits 1), leave nothing loaded and 452 ENOSYS, and log exactly
# one line of its own, matching PATTERN (grep -E).
refuses() {
	dmesg -c >/dev/null
	./modload ./fchmodat2-fi.ko "$1=1"
	[ $? = 1 ] && [ -r /proc/modules ] && ! grep -q '^fchmodat2 ' /proc/modules &&
		./fchmodat2_test --probe | grep -q 'ENOSYS'
	step $? "$1=1: $2 refuses the load, 452 stays ENOSYS"
	dmesg | grep 'fchmodat2: ' | grep -v 'taint' >/tmp/refusal
	grep -Eq "$3" /tmp/refusal && [ "$(wc -l </tmp/refusal)" = 1 ]
	step $? "the refusal is one clear log line: $(cat /tmp/refusal)"
}

# The load-time check of the code the hook relies on (the entry code calls
# syscall_trace_enter; on arm64 the dispatcher calls sys_ni_syscall): the
# test build's fail_check=1 makes it look for calls to an address the
# kernel never calls (the module's own data), as on a kernel laid out
# otherwise.
refuses fail_check "the hooked code's check" \
	'does not (call|branch to) .* unsupported kernel'
# The audit class table (kernel/auditfilter.c's classes), found by
# content: fail_audit=1 makes it unrecognised, as on a kernel whose class
# lists differ from its headers'.
refuses fail_audit "an audit class table not recognised" \
	"audit's system call classes .* unsupported kernel"
# x86_64: registering the sys_enter probe must have given every task the
# syscall tracepoint's entry work (the slow path the hook sits on);
# fail_tpwork=1 makes the module see it missing.
if [ "$(uname -m)" = x86_64 ]; then
	refuses fail_tpwork "no tracepoint work after the sys_enter probe" \
		"the sys_enter probe did not give tasks the syscall tracepoint's entry work: unsupported kernel"
else
	step_skipped "the arm64 hook needs no tracepoint" \
		"fail_tpwork=1"
fi

./fchmodat2_test --probe | grep -q 'ENOSYS'
step $? "452 returns ENOSYS again after rmmod"
[ -r /proc/modules ] && ! grep -q '^fchmodat2 ' /proc/modules
result unload $? "the module is unloaded"

# Last, as it leaves ftrace disabled for good: after an ftrace bug
# (ftrace_kill()) the hook cannot be removed, so the code it calls must
# stay in memory and keep working; rmmod never completes, and says why.
echo "# ftrace disabled under the loaded module, as after an ftrace bug"
insmod ./fchmodat2.ko
step $? "insmod fchmodat2.ko"
insmod ./f2_killftrace.ko 2>/dev/null
dmesg | grep -q 'f2_killftrace: ftrace disabled'
step $? "f2_killftrace.ko disabled ftrace (ftrace_kill())"
rmmod fchmodat2 2>/dev/null &
rmmod_pid=$!
sleep 3
kill -0 "$rmmod_pid" 2>/dev/null && grep -q '^fchmodat2 ' /proc/modules
step $? "rmmod fchmodat2 does not complete: the hooked code stays in memory"
why=$(dmesg | grep 'fchmodat2: cannot remove the hook')
[ "$(echo "$why" | wc -l)" = 1 ] && [ -n "$why" ]
step $? "one log line says why: $why"
./fchmodat2_test --probe | grep -q 'available'
step $? "452 is still served"
# ...and that rmmod does not keep the machine from suspending: the freezer,
# the first stage of every suspend (PM_DEBUG's pm_test stops after it)
if [ -w /sys/power/pm_test ] && grep -qw freeze /sys/power/state; then
	echo freezer >/sys/power/pm_test && echo freeze >/sys/power/state
	step $? "suspend's freezer stage succeeds while that rmmod waits"
	echo none >/sys/power/pm_test
else
	step_skipped "no /sys/power/pm_test (PM_DEBUG) or no s2idle" \
		"suspend's freezer stage"
fi

kernel_log_checks
finish
