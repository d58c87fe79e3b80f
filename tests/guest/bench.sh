#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM guest for "make bench", under -icount shift=0: one
# guest nanosecond is one instruction.
#
# Single calls: prints "BENCH <what> <ns per call>", without the module,
# on x86_64 also with each part of its mechanism alone (f2_cost.ko: the
# slow path, then an empty sys_enter probe), with the module, and after
# it is unloaded.
#
# Workloads: prints "WORK <workload> without|with <round> <ns>", each run
# once per round without and with the module loaded, the two interleaved
# so that what a round leaves behind (page cache, slabs) falls on both.
# Each workload's result is asserted, so that a failing run never counts
# as a fast one.

cd /f2 || exit 1
fail() { echo "BENCH-FAILED $*"; exit 1; }

bench() { # bench LABEL OPERATION ITERATIONS
	r=$(./bench "$2" "$3" /tmp) || return 1
	set -- "$1" $r
	[ -n "$3" ] || return 1
	echo "BENCH $1 $3"
}

# bench_median LABEL OPERATION ITERATIONS: the median of 5 runs, for an
# operation whose cost depends on where the scheduler puts the tasks
# (fork + exit: two vCPUs, one child each time)
bench_median() {
	for i in 1 2 3 4 5; do
		r=$(./bench "$2" "$3" /tmp) || return 1
		set -- "$1" "$2" "$3" $r
		[ -n "$5" ] || return 1
		echo "$5"
		set -- "$1" "$2" "$3"
	done | sort -n | sed -n 3p | {
		read -r m && [ -n "$m" ] && echo "BENCH $1 $m"
	}
}

bench getpid_without getpid 20000 || fail getpid
bench emulation_without emulation 5000 || fail emulation
bench_median forkexit_without forkexit 200 || fail fork+exit
if [ -e f2_cost.ko ]; then
	for part in slowpath probe; do
		insmod ./f2_cost.ko part=$part || fail "insmod f2_cost part=$part"
		bench getpid_$part getpid 20000 || fail "getpid, $part"
		rmmod f2_cost || fail "rmmod f2_cost"
	done
fi
insmod ./fchmodat2.ko || fail insmod
bench getpid_with getpid 20000 || fail "getpid, module"
bench fchmodat2_with fchmodat2 10000 || fail fchmodat2
bench fchmodat_with fchmodat 10000 || fail fchmodat
bench enoent2_with fchmodat2_enoent 5000 || fail "fchmodat2, ENOENT"
bench enoent_with fchmodat_enoent 5000 || fail "fchmodat, ENOENT"
bench_median forkexit_with forkexit 200 || fail "fork+exit, module"
rmmod fchmodat2 || fail rmmod
bench getpid_after getpid 20000 || fail "getpid, after"

# Debian 13's chmod, through its own loader and glibc 2.41 (fchmodat2,
# with the /proc emulation as its fallback); /proc is mounted.
case $(uname -m) in
x86_64)  ld="trixie/lib64/ld-linux-x86-64.so.2 --library-path trixie/lib" ;;
aarch64) ld="trixie/lib64/ld-linux-aarch64.so.1 --library-path trixie/lib" ;;
esac

run() { # run WORKLOAD PROGRAM [ARG...]
	w=$1
	shift
	r=$(./bench run "$@") || fail "$w ($state)"
	set -- $r
	[ "$1" = run ] && [ -n "$2" ] || fail "$w ($state): no time"
	echo "WORK $w $state $round $2"
}

# mode_is PATH MODE: PATH's mode is MODE (octal, as stat -c %a prints it)
mode_is() {
	[ "$(stat -c %a "$1")" = "$2" ] || fail "$1: mode $(stat -c %a "$1"), not $2"
}

workloads() {
	rm -rf /tmp/w && mkdir /tmp/w || fail "cannot make /tmp/w"
	run tar tar -xf /f2/tree.tar -C /tmp/w
	[ "$(find /tmp/w -type f | wc -l)" = "$FILES" ] || fail "tar: not $FILES files"
	mode_is /tmp/w/tree/d00/f000 644
	run walk sh -c 'find /tmp/w -print0 | xargs -0 stat -c "%a %s %n" >/dev/null'
	# shellcheck disable=SC2086
	run chmod_R $ld trixie/chmod -R go= /tmp/w/tree
	mode_is /tmp/w/tree/d00/f000 600
	mode_is "/tmp/w/tree/d$(printf %02d $((DIRS - 1)))" 700
	run pipeline sh -c 'i=0; while [ $i -lt 300 ]; do
		echo $i | sort | wc -c >/dev/null; i=$((i + 1)); done'
	r=$(./bench getpid 20000 /tmp) || fail "getpid ($state)"
	set -- $r
	[ -n "$2" ] || fail "getpid ($state): no time"
	echo "WORK getpid $state $round $2"
}

. ./tree.env
for round in 1 2 3 4 5; do
	state=without
	workloads
	insmod ./fchmodat2.ko || fail "insmod, round $round"
	state=with
	workloads
	rmmod fchmodat2 || fail "rmmod, round $round"
done
echo "BENCH-DONE"
