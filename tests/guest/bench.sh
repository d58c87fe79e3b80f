#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM guest for "make bench", under -icount shift=0: one
# guest nanosecond is one instruction. Prints "BENCH <what> <ns per call>".

cd /f2 || exit 1
bench() { # bench LABEL OPERATION ITERATIONS
	set -- "$1" $(./bench "$2" "$3" /tmp) || return 1
	[ -n "$3" ] || return 1
	echo "BENCH $1 $3"
}

bench getpid_without getpid 20000 || exit 1
bench emulation_without emulation 5000 || exit 1
insmod ./fchmodat2.ko || exit 1
bench getpid_with getpid 20000 || exit 1
bench fchmodat2_with fchmodat2 10000 || exit 1
bench fchmodat_with fchmodat 10000 || exit 1
bench enoent2_with fchmodat2_enoent 5000 || exit 1
bench enoent_with fchmodat_enoent 5000 || exit 1
rmmod fchmodat2 || exit 1
bench getpid_after getpid 20000 || exit 1
