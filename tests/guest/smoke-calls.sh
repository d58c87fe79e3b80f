#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Sourced in the VM guest (with steps.sh): the sweep's smoke calls
# (smoke.sh, on a kernel with the module) and, with the same expected
# results, the native row (native-row.sh, on a kernel whose fchmodat2 is
# the kernel's own): what is written here is mainline's answer, checked on
# mainline every make check.

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

# smoke_calls: the symlink refusal, a regular file, invalid flags
smoke_calls() {
	rm -rf /tmp/s
	mkdir -p /tmp/s && echo x >/tmp/s/f && chmod 644 /tmp/s/f &&
		ln -s f /tmp/s/l
	step $? "the smoke set's files: /tmp/s/f (0644) and the symlink l"
	expect "-1 EOPNOTSUPP" /tmp/s/l 777 600 nofollow
	[ "$(stat -c %a /tmp/s/f)" = 644 ]
	step $? "the symlink's target is untouched: $(stat -c %a /tmp/s/f)"
	expect 0 /tmp/s/f 600 600 nofollow
	expect 0 /tmp/s/f 640 640
	expect "-1 EINVAL" /tmp/s/f 640 600 0x1
	expect "-1 EINVAL" /tmp/s/f 640 600 0x200
}
