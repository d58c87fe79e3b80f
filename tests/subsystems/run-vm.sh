#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run-vm.sh SERIES...: fchmodat2 on tmpfs, ext4, xfs and btrfs, under
# seccomp, ptrace (and Debian 13's strace), fsnotify, capabilities and
# AppArmor, and through Debian 13's glibc and chmod, compared per test with kernels whose fchmodat2 is
# native (issue 4).
#
#   host   natively on this machine's kernel (root; loop devices)
#   6.12   Debian 13's kernel in QEMU, native fchmodat2 (no module)
#   5.10   Debian 11's kernel in QEMU with fchmodat2.ko (built by DKMS)
#   6.1    Debian 12's kernel in QEMU with fchmodat2.ko (built by DKMS)
#   6.1-debug  the debug kernel (tests/vm/build-debug-kernel.sh: KASAN,
#          lockdep, no symlink block in notify_change), with fchmodat2.ko
#   6.12-arm64, 6.1-arm64, 5.10-arm64  the same on arm64 (QEMU virt):
#          AArch64 and AArch32 callers, Debian 13's arm64 userland; a
#          module series is compared with 6.12-arm64 only
#
# Sets (build/subsystems/SERIES/results/SET.FS.BITS): test (the test
# program), fs, creds, acl (POSIX ACLs) on tmpfs, ext4, xfs, btrfs; vfs
# (/proc magic links, overlayfs), ptrace, strace (Debian
# 13's), seccomp, libc and chmod (Debian 13's glibc and coreutils, no
# /proc), lsm (AppArmor, VM
# only), audit (records of an exit rule on 452, VM only) and nfs (NFSv4.2
# server and client on the guest, VM only) on tmpfs; libc-nomod and chmod-nomod: 5.10 and 6.1 before the
# module is loaded (glibc's fallback; checked, not compared).
#
# One boot per kernel. The same static programs (64- and 32-bit; on arm64
# AArch64 and AArch32) run everywhere on fresh ext4, xfs and btrfs images
# made here with mkfs. A module series' results are compared test by test
# with those of "host" and of "6.12" (an arm64 series: of "6.12-arm64"):
# run first in the same invocation, or earlier from the same binaries (a
# stamp says so); otherwise they are made first.
#
# Prints TAP: every guest's lines, then one line per compared program run;
# an F2-ROW line (f2_row, tests/lib.sh) per run and one for the
# comparisons, which make check adds up.
# Exits non-zero on any "not ok", a dead VM, a dirty kernel log, or a
# difference from a native kernel that kernel-differences does not
# explain. Artifacts in build/subsystems/SERIES/: console.log, results/,
# compare-*.txt. F2_OFFLINE=1 uses the cached kernels only.
#
# run-vm.sh --compare REF RUN: only compare two earlier runs' results.
set -uo pipefail
shopt -s nullglob
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
# shellcheck source=tests/guest/steps.sh
. "$top/tests/guest/steps.sh"

here=$top/tests/subsystems
G=$B/subsystems
# what each series' guest does: its MODE in the matrix (tests/lib.sh)
f2_matrix_init
progs=(subsys_fs subsys_seccomp subsys_ptrace subsys_creds subsys_lsm subsys_acl subsys_vfs subsys_audit subsys_nfs)
# Debian 13's userland for the real-client, strace and AppArmor sets, per
# architecture (on arm64 strace needs no libunwind)
# shellcheck disable=SC2034 # read through build_programs' nameref
trixie_debs_amd64=(libc6 coreutils apparmor strace libunwind8 liblzma5)
# shellcheck disable=SC2034
trixie_files_amd64=(usr/lib64/ld-linux-x86-64.so.2 usr/lib/x86_64-linux-gnu/libc.so.6
	      usr/bin/chmod usr/sbin/apparmor_parser usr/bin/strace
	      usr/lib/x86_64-linux-gnu/libunwind-ptrace.so.0
	      usr/lib/x86_64-linux-gnu/libunwind-x86_64.so.8
	      usr/lib/x86_64-linux-gnu/libunwind.so.8
	      usr/lib/x86_64-linux-gnu/liblzma.so.5)
# shellcheck disable=SC2034 # read through build_programs' nameref
trixie_debs_arm64=(libc6 coreutils apparmor strace)
# shellcheck disable=SC2034
trixie_files_arm64=(usr/lib/ld-linux-aarch64.so.1 usr/lib/aarch64-linux-gnu/libc.so.6
	      usr/bin/chmod usr/sbin/apparmor_parser usr/bin/strace)
status=0

fail() {
	echo "run-vm.sh: $*" >&2
	status=1
}

# arch_of SERIES: amd64, or arm64 for an arm64 series (SERIES-arm64...)
arch_of() {
	case $1 in
	*-arm64 | *-arm64-*) echo arm64 ;;
	*) echo amd64 ;;
	esac
}

# adir ARCH: where ARCH's programs, Debian 13 files and stamp are
# ($G for amd64, $G/arm64 for arm64).
adir() {
	if [ "$1" = arm64 ]; then echo "$G/arm64"; else echo "$G"; fi
}

# build_programs ARCH: the test program and ours, static, 64- and 32-bit
# (x86_64 and i386; AArch64 and AArch32), into ADIR/bin; ADIR/stamp
# identifies them and the scenario scripts.
build_programs() {
	local arch=$1 d flags=(-O2 -Wall -Wextra -Werror -static -pthread) p
	local cc cc32

	d=$(adir "$arch")
	rm -rf "${d:?}/bin"
	mkdir -p "$d/bin"
	if [ "$arch" = arm64 ]; then
		cc=(aarch64-linux-gnu-gcc) cc32=(arm-linux-gnueabihf-gcc)
	else
		# as the Makefile does: without gcc-multilib (which a cross
		# linux-libc-dev displaces), -m32 finds the bi-arch
		# <asm/...> headers in the host's multiarch directory
		cc=(gcc)
		cc32=(gcc -m32 -isystem "/usr/include/$(gcc -print-multiarch)")
	fi
	for p in fchmodat2_test f2call "${progs[@]}"; do
		local src=("$here/$p.c")

		case $p in
		fchmodat2_test) src=("$top"/tests/fchmodat2_test/*.c) ;;
		f2call) src=("$top/tests/$p.c") ;;
		esac
		"${cc[@]}" "${flags[@]}" -o "$d/bin/$p" "${src[@]}" &&
			"${cc32[@]}" "${flags[@]}" -o "$d/bin/${p}32" "${src[@]}" ||
			return 1
	done
	# dynamic on purpose: it runs on Debian 13's glibc
	"${cc[@]}" -O2 -Wall -Wextra -Werror -o "$d/bin/subsys_libc" "$here/subsys_libc.c" &&
		"${cc[@]}" "${flags[@]}" -o "$d/bin/subsys_tree" "$here/subsys_tree.c" || return 1
	local -n debs=trixie_debs_$arch files=trixie_files_$arch
	F2_DEBS_ARCH=$arch "$top/tests/vm/fetch-debs.sh" trixie "$d/trixie-root" \
		"${debs[@]}" >"$d/trixie.versions" || return 1
	rm -rf "$d/trixie"
	for p in "${files[@]}"; do
		mkdir -p "$d/trixie/$(dirname "$p")"
		cp -L "$d/trixie-root/$p" "$d/trixie/$p" || return 1
	done
	rm -rf "$d/trixie-root"
	cat "$d"/bin/* "$d/trixie.versions" "$here/run-vm.sh" \
		"$here/guest.sh" "$here/host.sh" "$here/suite.sh" \
		"$top/tests/guest/steps.sh" |
		sha256sum | cut -c1-16 >"$d/stamp"
}

# make_images DIR: fresh, small ext4, xfs and btrfs images (sparse).
make_images() {
	local dir=$1

	mkdir -p "$dir"
	rm -f "$dir"/*.img
	truncate -s 128M "$dir/ext4.img" &&
		mkfs.ext4 -q -F "$dir/ext4.img" &&
		truncate -s 300M "$dir/xfs.img" &&
		mkfs.xfs -q -f "$dir/xfs.img" &&
		truncate -s 256M "$dir/btrfs.img" &&
		mkfs.btrfs -q -f "$dir/btrfs.img" >/dev/null
}

# split LOG DIR: each framed program run of LOG into DIR/SET.FS.BITS, one
# line per test: "NAME<TAB>ok|fail|skip<TAB>skip reason", and its exit
# status as the test "(exit status)".
split_results() {
	rm -rf "$2"
	mkdir -p "$2"
	# (a program's lines are a KTAP subtest: indented by four spaces)
	tr -d '\r' <"$1" | awk -v dir="$2" '
		{ sub(/^    /, "") }
		/^# subsys-run / { out = dir "/" $3 "." $4 "." $5; printf "" >out; next }
		/^# subsys-end / {
			if (out != "") {
				sub(/^rc=/, "", $6)
				printf "(exit status)\t%s\t\n", $6 >out
				close(out)
			}
			out = ""; next
		}
		out == "" { next }
		/^ok [0-9]+ / {
			line = $0; reason = ""
			sub(/^ok [0-9]+ /, "", line)
			if (match(line, / # SKIP /)) {
				reason = substr(line, RSTART + 8)
				line = substr(line, 1, RSTART - 1)
				printf "%s\tskip\t%s\n", line, reason >out
			} else {
				printf "%s\tok\t\n", line >out
			}
			next
		}
		/^not ok [0-9]+ / {
			line = $0; sub(/^not ok [0-9]+ /, "", line)
			printf "%s\tfail\t\n", line >out
		}'
}

# host_stamp: what the host's results depend on: the binaries, and this
# machine's kernel and user (which decide whether it can be an oracle).
host_stamp() {
	echo "$(cat "$G/stamp") $(uname -r) uid $(id -u)"
}

# vm_stamp SERIES: what a guest's results depend on: the binaries, and
# the kernel release that SERIES is now (a newer ABI on the mirror makes
# earlier results stale).
vm_stamp() {
	local krel

	krel=$(f2_kernel "$1" >/dev/null 2>&1 && echo "$KREL") || krel=unknown
	echo "$(cat "$(adir "$(arch_of "$1")")/stamp") $krel"
}

# fresh LABEL: LABEL's results exist and come from the current binaries
# and, for a guest, the same kernel release (for the host, this kernel
# and user).
fresh() {
	local want

	if [ "$1" = host ]; then
		want=$(host_stamp)
	else
		want=$(vm_stamp "$1")
	fi
	{ [ -d "$G/$1/results" ] || [ -f "$G/$1/skipped" ]; } &&
		[ "$(cat "$G/$1/stamp" 2>/dev/null)" = "$want" ]
}

# vm_failed LABEL KERNEL WHY: a run that could not boot, one failure
vm_failed() {
	tap_result 1 1 "$1: $3"
	f2_row_failed "subsystems $1" "$2" "$3"
	fail "$1: $3"
}

# compared REF RUN: compare, its TAP lines kept in compare.tap too, for
# the comparisons' F2-ROW line; cmp_rc 1 if it failed
compared() {
	local s0=$status

	status=0
	compare "$1" "$2" >"$G/compare.one"
	tee -a "$G/compare.tap" <"$G/compare.one"
	[ "$status" = 0 ] || cmp_rc=1
	[ "$s0" = 0 ] || status=1
}

# emit LOG: its TAP lines (and the verdict) on stdout.
emit() {
	tr -d '\r' <"$1" | grep -E '^ *(not )?ok |^ *# (Subtest|subsys-run|subsys-end|=====|Totals|harness)'
}

run_host() {
	local out=$G/host

	rm -rf "$out"
	mkdir -p "$out"
	echo "# == host: $(uname -r), native fchmodat2"
	# An extra oracle, where this machine can be one (Debian 13's 6.12
	# in QEMU is the one that travels).
	local why oracle
	why=$(f2_host_oracle "$G/bin/fchmodat2_test")
	oracle=$?
	if [ "$oracle" = 1 ]; then
		tap_skip 1 "host: $why"
		f2_row_skipped "subsystems host" "$(uname -r)" "$why"
		echo "$why" >"$out/skipped"
		host_stamp >"$out/stamp"
		return 0
	elif [ "$oracle" != 0 ]; then
		tap_result 1 1 "host: $why"
		f2_row_failed "subsystems host" "$(uname -r)" "$why"
		fail "host: $why"
		return 1
	fi
	if [ "$(id -u)" != 0 ]; then
		why="not root: the native run needs loop devices and mounts (Debian 13's 6.12 in QEMU is the oracle)"
		tap_skip 1 "host: $why"
		f2_row_skipped "subsystems host" "$(uname -r)" "$why"
		echo "$why" >"$out/skipped"
		host_stamp >"$out/stamp"
		return 0
	fi
	make_images "$out/img" || { vm_failed host "$(uname -r)" "mkfs failed"; return 1; }
	unshare -m --propagation private \
		sh "$here/host.sh" "$G/bin" "$out/img" "$G/trixie" \
		>"$out/console.log" 2>&1
	local rc=$?
	emit "$out/console.log"
	echo "# host: host.sh exited $rc"
	f2_row "subsystems host" "$(uname -r)" \
		"$(f2_result "$out/console.log" "$rc" /dev/null nolog)"
	sed -n 's/^# subsys-host-bits //p' "$out/console.log" >"$out/bits"
	[ "$rc" = 0 ] || fail "host: native run failed (exit $rc)"
	rm -rf "$out/img"
	split_results "$out/console.log" "$out/results"
	host_stamp >"$out/stamp"
}

# run_vm TARGET: one boot of TARGET's kernel with the scenario (a series,
# or SERIES-full: booted with preempt=full; f2_target, tests/lib.sh).
run_vm() {
	local series=$1 mode out files=() mods=() q=() fs rc d

	f2_target "$series"
	mode=$(f2_mode "$f2_t_series")
	d=$(adir "$(arch_of "$series")")
	out=$G/$series
	rm -rf "$out"
	mkdir -p "$out"
	if ! f2_kernel "$f2_t_series"; then
		vm_failed "$series" "$series" "cannot fetch the kernel"
		return 1
	fi
	echo "# == VM: $series ($KREL), $mode"
	files=("$d"/bin/* "$here/suite.sh" "$top/tests/guest/steps.sh")
	if [ "$mode" = module ]; then
		if ! f2_dkms_build "$out/dkms" >"$out/build.log" 2>&1; then
			tail -n 20 "$out/build.log" "$out/dkms/dkms.log"
			vm_failed "$series" "$KREL" "dkms build failed"
			return 1
		fi
		files+=("$out/dkms/fchmodat2.ko")
	fi
	f2_stage "$out/f2" "$here/guest.sh" "${files[@]}"
	cp -a "$d/trixie" "$out/f2/trixie"
	echo "$mode" >"$out/f2/subsys-mode"
	make_images "$out/img" || { vm_failed "$series" "$KREL" "mkfs failed"; return 1; }
	for fs in ext4 xfs btrfs; do
		q+=(-drive "file=$out/img/$fs.img,format=raw,if=none,id=$fs,cache=unsafe"
		    -device "virtio-blk-pci,drive=$fs,serial=subsys-$fs")
	done
	for m in virtio_pci virtio_blk ext4 xfs btrfs overlay nfsd nfsv4; do
		mods+=(-k "$m")
	done
	f2_boot "${mods[@]}" "$out/f2" "$out/initrd.cpio.gz" \
		"$out/console.log" -t 1800 ${f2_t_append:+-a "$f2_t_append"} \
		-- "${q[@]}" >"$out/verdict"
	rc=$?
	emit "$out/console.log"
	cat "$out/verdict"
	f2_row "subsystems $series" "$KREL" \
		"$(f2_result "$out/console.log" "$rc" "$out/verdict")"
	[ "$rc" = 0 ] || fail "$series: $(grep verdict: "$out/verdict")"
	rm -rf "$out/img"
	split_results "$out/console.log" "$out/results"
	echo "$(cat "$d/stamp") $KREL" >"$out/stamp"
}

# compare REF RUN: per program run, per test, RUN's result against REF's.
# A difference is explained only by a line of kernel-differences:
#   RUN[,RUN...] SET FS TEST REF_RESULT RUN_RESULT REASON_SUBSTRING  # why
# (RUN_RESULT skip must carry REASON_SUBSTRING in its skip reason).
compare() {
	local ref=$1 run=$2 f base n=0 report

	report=$G/$run/compare-$ref.txt

	if [ -f "$G/$ref/skipped" ]; then
		tap_skip 1 "$run vs $ref: $(cat "$G/$ref/skipped")"
		return
	fi
	: >"$report"
	for f in "$G/$ref"/results/*; do
		base=${f##*/}
		n=$((n + 1))
		local diffs arc err=$G/$run/compare-$ref.err
		# A comparison that fails (awk's status or any message of it),
		# or that compares no test, is a difference: never "same".
		diffs=$(awk -F'\t' -v KNOWN="$here/kernel-differences" -v run="$run" -v key="$base" -v ref="$ref" '
			BEGIN {
				split(key, k, ".")
				while ((getline l <KNOWN) > 0) {
					if (l ~ /^[ \t]*(#|$)/) continue
					sub(/[ \t]*#.*/, "", l)
					m = split(l, w, /[ \t]+/)
					if (index("," w[1] ",", "," run ",") == 0 || w[2] != k[1] ||
					    (w[3] != "*" && w[3] != k[2]))
						continue
					reason = w[7]
					for (i = 8; i <= m; i++) reason = reason " " w[i]
					known[w[4], w[5], w[6]] = reason
				}
			}
			FNR == NR { r[$1] = $2; rwhy[$1] = $3; order[++nr] = $1; next }
			{
				s[$1] = $2; why[$1] = $3
				if (!($1 in r)) order[++nr] = $1
				else if ($1 != "(exit status)") both++
			}
			END {
				# the exit status of the program is in every run: not a test
				if (!both)
					print "DIFFERENT: no test in both runs"
				for (i = 1; i <= nr; i++) {
					t = order[i]
					a = (t in r) ? r[t] : "missing"
					b = (t in s) ? s[t] : "missing"
					if (a == b) continue
					# the reference cannot run i386 calls: not a reference for this one
					if (a == "skip" && index(rwhy[t], "runs no i386 system calls") &&
					    (b == "ok" || b == "skip"))
						printf "explained: %s: %s cannot run it (%s)\n", t, ref, rwhy[t]
					else if ((t, a, b) in known && index(why[t], known[t, a, b]))
						printf "explained: %s: %s %s, %s %s (%s)\n", t, ref, a, run, b, why[t]
					else
						printf "DIFFERENT: %s: %s %s, %s %s%s\n", t, ref, a, run, b, why[t] ? " (" why[t] ")" : ""
				}
			}' "$f" "$G/$run/results/$base" 2>"$err")
		arc=$?
		if [ "$arc" != 0 ] || [ -s "$err" ]; then
			diffs="DIFFERENT: the comparison itself failed (awk exit status $arc: $(head -c 300 "$err" | tr '\n' ' '))"
		fi
		[ -f "$G/$run/results/$base" ] ||
			diffs="DIFFERENT: the run is missing in $run"
		{
			echo "== ${base//./ }"
			[ -n "$diffs" ] && echo "$diffs"
		} >>"$report"
		if grep -q '^DIFFERENT' <<<"$diffs"; then
			tap_result "$n" 1 "$run vs $ref: ${base//./ }: $(grep -c '^DIFFERENT' <<<"$diffs") tests differ"
			grep '^DIFFERENT' <<<"$diffs" | sed 's/^/# /'
			status=1
		else
			tap_result "$n" 0 "$run vs $ref: ${base//./ }: same per-test results$(grep -q '^explained' <<<"$diffs" && echo " ($(grep -c '^explained' <<<"$diffs") explained by kernel-differences)")"
			grep '^explained' <<<"$diffs" | sed 's/^/# /'
		fi
	done
	for f in "$G/$run"/results/*; do
		[ -f "$G/$ref/results/${f##*/}" ] && continue
		# without the module: nothing native to compare with; AppArmor,
		# audit and nfsd: not run on this machine (machine-wide settings)
		case ${f##*/} in
		*-nomod.*) continue ;;
		lsm.* | audit.* | nfs.*) [ "$ref" = host ] && continue ;;
		*.32)
			if [ "$ref" = host ] && ! grep -qw 32 "$G/host/bits"; then
				n=$((n + 1))
				tap_skip "$n" "$run vs host: ${f##*/}: this machine cannot execute i386 programs (compared with 6.12 only)"
				continue
			fi ;;
		esac
		n=$((n + 1))
		tap_result "$n" 1 "$run vs $ref: ${f##*/}: not run on $ref"
		status=1
	done
	[ "$n" -gt 0 ] || { tap_result 1 1 "$run vs $ref: nothing to compare"; status=1; }
}

[ $# -gt 0 ] || { echo "usage: run-vm.sh host|6.12|5.10|6.1|6.1-debug|6.12-arm64|6.1-arm64|5.10-arm64... | --compare REF RUN" >&2; exit 2; }
if [ "$1" = --compare ] && [ $# = 3 ]; then
	compare "$2" "$3"
	exit "$status"
fi
# host, or a row of the matrix whose lanes say subsystems (tests/lib.sh)
subsys_rows=" host $(F2_SERIES='' f2_lane subsystems | cut -d'|' -f1 | paste -sd' ') "
for s in "$@"; do
	case $subsys_rows in
	*" $s "*) ;;
	*)
		echo "run-vm.sh: $s: not host nor a subsystems row of the matrix (tests/lib.sh):$subsys_rows" >&2
		[ "$s" = 6.1-debug ] && echo "run-vm.sh: the debug kernel is a row with F2_DEBUG=1, or once built (make check-debug) unless F2_DEBUG=0 (make check)" >&2
		exit 2 ;;
	esac
done
# amd64's programs always (the host and the x86 references' stamps), arm64's
# when an arm64 series is asked for
archs=amd64
for s in "$@"; do
	[ "$(arch_of "$s")" = arm64 ] && archs="amd64 arm64" && break
done
for t in mkfs.ext4 mkfs.xfs mkfs.btrfs qemu-system-x86_64 aarch64-linux-gnu-gcc arm-linux-gnueabihf-gcc; do
	case $t:$archs in *-gcc:amd64) continue ;; esac
	command -v "$t" >/dev/null || { echo "run-vm.sh: $t is missing (e2fsprogs, xfsprogs, btrfs-progs, qemu-system-x86; gcc-aarch64-linux-gnu, gcc-arm-linux-gnueabihf: make deps)" >&2; exit 1; }
done
mkdir -p "$G"
for a in $archs; do
	build_programs "$a" || { echo "run-vm.sh: cannot build the $a test programs" >&2; exit 1; }
done

# The runs go two at a time (F2_JOBS, as make check's rows): each in a
# subshell, its output kept and printed whole in the order asked, its
# failure in $G/LABEL.failed; then the comparisons, one after the other.
jobs_=${F2_JOBS:-2}
labels=("$@")
pids=() launched=0 printed=0
while [ "$printed" -lt "${#labels[@]}" ]; do
	while [ "$launched" -lt "${#labels[@]}" ] &&
		[ "$((launched - printed))" -lt "$jobs_" ]; do
		s=${labels[launched]}
		rm -f "$G/$s.failed"
		(
			status=0
			case $s in
			host) run_host ;;
			*) run_vm "$s" ;;
			esac
			[ "$status" = 0 ] || touch "$G/$s.failed"
		) >"$G/$s.out" 2>&1 &
		pids[launched]=$!
		launched=$((launched + 1))
	done
	s=${labels[printed]}
	wait "${pids[printed]}"
	rc=$?
	[ "$rc" = 0 ] || touch "$G/$s.failed"
	cat "$G/$s.out"
	# a run that died before its F2-ROW line is one failure in the table
	grep -q '^F2-ROW|' "$G/$s.out" ||
		vm_failed "$s" "$s" "died before its result (exit $rc)"
	[ -e "$G/$s.failed" ] && status=1
	printed=$((printed + 1))
done

# (a reference not asked for, e.g. run-vm.sh 6.1 alone, is made below)
# The references of a module series: this machine and Debian 13's 6.12 on
# x86_64; Debian 13's arm64 6.12 on arm64 (this machine runs no arm64
# kernel).
done_labels=" $* "
: >"$G/compare.tap"
cmp_rc=0
for s in "$@"; do
	f2_target "$s"
	case $s:$(f2_mode "$f2_t_series"):$(arch_of "$s") in
	*:module:amd64) refs="host 6.12" ;;
	*:module:arm64) refs="6.12-arm64" ;;
	6.12:native:*)
		if fresh host; then
			echo "# == 6.12 compared with host (both native)"
			compared host 6.12
		fi
		continue ;;
	*) continue ;;
	esac
	for ref in $refs; do
		if ! fresh "$ref" && [ "$done_labels" = "${done_labels/ $ref /}" ]; then
			echo "# $ref results missing or from other binaries: making them"
			if [ "$ref" = host ]; then run_host; else run_vm "$ref"; fi
			done_labels+="$ref "
		fi
		if fresh "$ref"; then
			echo "# == $s compared with $ref"
			compared "$ref" "$s"
		else
			tap_result 1 1 "$s vs $ref: no results of $ref to compare with" |
				tee -a "$G/compare.tap"
			fail "no results of $ref to compare $s with"
		fi
	done
done
# the comparisons: one more F2-ROW line (each run printed its own)
[ -s "$G/compare.tap" ] &&
	f2_row "subsystems compared" "($*)" \
		"$(f2_result "$G/compare.tap" "$cmp_rc" /dev/null nolog)"
exit "$status"
