#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM guest for make sweep (tests/sweep.sh): the smoke set
# on one kernel ABI and flavour. Load the module DKMS built, the symlink
# refusal, a regular file, an invalid flag, the 32-bit test program (the
# compat entry), unload, a clean kernel log. TAP lines; F2-RESULT lines
# for the host's table.

cd /f2 || exit 1
. ./steps.sh

preemption_checks
./f2call /tmp/none 644 >/tmp/out 2>&1
grep -q 'ENOSYS' /tmp/out
step $? "452 returns ENOSYS before the module is loaded: $(cat /tmp/out)"

insmod ./fchmodat2.ko
result load $? "insmod fchmodat2.ko"

# expect RESULT PATH MODE_AFTER CALL_MODE [nofollow|FLAGS]: one call of
# fchmodat2(PATH, CALL_MODE, flags) must print "= RESULT", and PATH (not
# followed: stat -c %a) have MODE_AFTER afterwards
expect() {
	want=$1 path=$2 mode=$3
	shift 3
	out=$(./f2call "$path" "$@" 2>&1)
	got=$(stat -c %a "$path")
	case $out in
	*"= $want"*) [ "$got" = "$mode" ] ;;
	*) false ;;
	esac
	step $? "$out; mode of $path now $got, expected $mode"
}
mkdir -p /tmp/s && echo x >/tmp/s/f && chmod 644 /tmp/s/f && ln -s f /tmp/s/l
expect "-1 EOPNOTSUPP" /tmp/s/l 777 600 nofollow
[ "$(stat -c %a /tmp/s/f)" = 644 ]
step $? "the symlink's target is untouched: $(stat -c %a /tmp/s/f)"
expect 0 /tmp/s/f 600 600 nofollow
expect 0 /tmp/s/f 640 640
expect "-1 EINVAL" /tmp/s/f 640 600 0x1
expect "-1 EINVAL" /tmp/s/f 640 600 0x200

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
