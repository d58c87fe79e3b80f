#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM guest on a kernel with native fchmodat2 (Debian 13's
# 6.12): the test programs natively and, when an evaluation build of the
# module (F2_EVAL=1) is in /f2, its refusal to load without takeover=1 and
# the whole suite through it with takeover=1.

cd /f2 || exit 1
. ./steps.sh

preemption_checks

./fchmodat2_test --probe | grep -q 'available'
step $? "452 is native on this kernel"
echo "# 64-bit test program, native fchmodat2"
run ./fchmodat2_test
echo "# 32-bit test program, native fchmodat2"
run ./fchmodat2_test32
mainline_selftest fchmodat2_selftest
mainline_selftest fchmodat2_selftest32
echo "# the sweep's smoke calls (smoke-calls.sh), natively: mainline's answers"
. ./smoke-calls.sh
smoke_calls
raw_syscalls_452
echo "# other users of the hooked places, natively: kprobes, BPF"
. ./tracers.sh
tracers_native
if x86_only f2call "x32 off, natively"; then
	: >/tmp/x32file && chmod 0644 /tmp/x32file &&
		./f2call -x32 /tmp/x32file 600 >/tmp/out 2>&1
	grep -q '= -1 ENOSYS' /tmp/out && [ "$(stat -c %a /tmp/x32file)" = 644 ]
	step $? "x32 off (booted without syscall.x32=y): x32's 452 is ENOSYS: $(cat /tmp/out)"
fi

# the evaluation row (row-mode eval) has the placeholder and the F2_EVAL
# module staged, the native row neither: a missing one fails, not a case
# that silently does not run
case $(cat row-mode 2>/dev/null) in
eval)
	[ -f placeholder.ko ] && [ -f fchmodat2.ko ]
	step $? "evaluation row: the placeholder and the F2_EVAL module are staged" ;;
native)
	! [ -f placeholder.ko ] && ! [ -f fchmodat2.ko ]
	step $? "native row: no module staged (both builds refuse a kernel with fchmodat2)" ;;
*)
	step 1 "row-mode says native or eval: $(cat row-mode 2>&1)" ;;
esac

# what DKMS builds for a kernel that has fchmodat2: a placeholder that
# never loads
if [ -f placeholder.ko ]; then
	refused_next_to "the native fchmodat2: the placeholder DKMS built" \
		'already implements fchmodat2: the module is not needed (DKMS built a placeholder' \
		./placeholder.ko
fi
if [ -f fchmodat2.ko ]; then
	refused_next_to "the native fchmodat2 (without takeover=1)" \
		'already implements fchmodat2'

	./modload ./fchmodat2.ko takeover=1
	result load $? "with takeover=1 the module loads and serves 452"
	echo "# 64-bit test program, through the module"
	run ./fchmodat2_test
	echo "# 32-bit test program, through the module"
	run ./fchmodat2_test32
	mainline_selftest fchmodat2_selftest
	mainline_selftest fchmodat2_selftest32
	served=$(cat /sys/module/fchmodat2/calls_served)
	refused=$(cat /sys/module/fchmodat2/calls_refused)
	[ "$served" -gt 100 ] && [ "$refused" -gt 100 ]
	step $? "the module, not the kernel, answered: calls_served=$served calls_refused=$refused"
	rmmod fchmodat2
	result unload $? "rmmod fchmodat2"
	./fchmodat2_test --probe | grep -q 'available'
	step $? "452 is the kernel's own again"
fi

kernel_log_checks
finish
