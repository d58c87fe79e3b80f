#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM guest for make sweep (tests/sweep.sh): the smoke set
# on one kernel ABI and flavour. Load the module DKMS built, the symlink
# refusal, a regular file, an invalid flag, the 32-bit test program (the
# compat entry), unload, a clean kernel log. TAP lines; F2-RESULT lines
# for the host's table. The calls' expected results (smoke-calls.sh) are
# checked on mainline too, in make check's native row.

cd /f2 || exit 1
. ./steps.sh

preemption_checks
./f2call /tmp/none 644 >/tmp/out 2>&1
grep -q 'ENOSYS' /tmp/out
step $? "452 returns ENOSYS before the module is loaded: $(cat /tmp/out)"

insmod ./fchmodat2.ko
result load $? "insmod fchmodat2.ko"

. ./smoke-calls.sh
smoke_calls

# the 32-bit program: every case through the compat entry
if ./fchmodat2_test32 --probe >/dev/null 2>&1; then
	run ./fchmodat2_test32
else
	./fchmodat2_test32 --probe
	step 1 "the 32-bit test program runs and finds fchmodat2"
fi

rmmod fchmodat2
result unload $? "rmmod fchmodat2"
./f2call /tmp/s/f 600 >/tmp/out 2>&1
grep -q 'ENOSYS' /tmp/out
step $? "452 returns ENOSYS after rmmod: $(cat /tmp/out)"
kernel_log_checks
finish
