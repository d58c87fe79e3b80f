#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run.sh [options] -k VMLINUZ -i INITRD -l CONSOLE_LOG [-- QEMU_ARG...]
#
# Boot one QEMU (TCG) guest on an initramfs made by mkinitramfs.sh, whose
# /init runs /f2/guest.sh and reports its exit code on a second serial port,
# the status channel, kept next to the console log as CONSOLE_LOG.status.
#
#   -k FILE     kernel to boot (VMLINUZ of fetch-kernel.sh's env)
#   -i FILE     initramfs
#   -l FILE     console log to write (kept: it is the run's artifact)
#   -t SECONDS  wall-clock timeout (default 600)
#   -I SECONDS  stop a guest that printed nothing for so long (default 240;
#               0: never)
#   -m MIB      guest memory (default 1024)
#   -s CPUS     guest CPUs (default 2, or 1 with -c)
#   -c          deterministic guest time: -icount shift=0,sleep=off (benchmarks);
#               one CPU, on one host thread (icount cannot run vCPUs in
#               parallel)
#   -q QEMU     the emulator: "trixie" (default; Debian 13's QEMU 10.0
#               rebuilt with tests/vm/qemu-patches/, from fetch-qemu.sh),
#               "debian13" (Debian 13's own binary) or "system" (this
#               machine's qemu-system-*, Debian 12's 7.2). Only the first
#               runs parallel vCPUs correctly (tests/vm/README.md); the
#               others are for showing that (make emulator-check)
#   -a ARGS     extra kernel command line
#   -O          the guest injects one oops on purpose (tests/guest/oops.sh):
#               booted without oops=panic, and the lines from its
#               "f2_oops: ... oopses" marker to the oops' "---[ end trace"
#               may hold that oops once (its NULL dereference, Oops and
#               Call Trace lines); any other report still counts
#   -L LEVEL    kernel console loglevel (default 5: warnings and worse); /init
#               also sends the whole kernel log to the status channel
#   -U VARS     boot through UEFI firmware with Secure Boot instead of -k/-i:
#               q35 with SMM, this machine's OVMF (Debian's ovmf package:
#               OVMF_CODE_4M.secboot.fd), VARS its variable store (written
#               by the guest); the disks' boot loader chooses the kernel and
#               its command line (tests/debian-system/run.sh); amd64 only
#   -- ...      passed to QEMU as is (drives, ...)
#
# Exit status, with a one-line verdict on stdout:
#   0  guest.sh exited 0 and the console is clean
#   1  guest.sh exited non-zero, or a kernel (timestamped) line of the console
#      or of the kernel log shows WARNING:, BUG: (soft lockups too), kernel
#      BUG at, Oops, Call Trace, Kernel panic, a hung task ("blocked for
#      more than") or an RCU stall ("detected stall"), even if that killed
#      the guest (oops=panic panic=-1 -no-reboot)
#   2  the VM timed out, went silent, or died without reporting a status
set -euo pipefail

die() { echo "run.sh: $*" >&2; exit 2; }
usage() { die "usage: run.sh [-r amd64|arm64] [-q trixie|debian13|system] [-t SEC] [-I SEC] [-m MIB] [-s CPUS] [-c] [-a ARGS] [-O] [-L LEVEL] {-k VMLINUZ -i INITRD | -U VARS} -l LOG [-- QEMU_ARG...]"; }

kernel='' initrd='' log='' append='' arch=amd64 emulator=trixie
timeout=600 idle=240 mem=1024 cpus='' loglevel=5 icount=()
oops=oops=panic expected_oops=0 uefi_vars=''
while getopts k:i:l:t:I:m:s:ca:OL:r:q:U: opt; do
	case $opt in
	U) uefi_vars=$OPTARG ;;
	I) idle=$OPTARG ;;
	q) emulator=$OPTARG ;;
	r) arch=$OPTARG ;;
	k) kernel=$OPTARG ;;
	i) initrd=$OPTARG ;;
	l) log=$OPTARG ;;
	t) timeout=$OPTARG ;;
	m) mem=$OPTARG ;;
	s) cpus=$OPTARG ;;
	c) icount=(-icount 'shift=0,sleep=off') ;;
	a) append=$OPTARG ;;
	O) oops='' expected_oops=1 ;;
	L) loglevel=$OPTARG ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ -n "$log" ] || usage
if [ -n "$uefi_vars" ]; then
	# the firmware boots what the disks hold
	[ -z "$kernel$initrd$append" ] && [ "$arch" = amd64 ] || usage
	ovmf=/usr/share/OVMF/OVMF_CODE_4M.secboot.fd
	[ -r "$ovmf" ] || die "no $ovmf: install Debian's ovmf package (tests/install-deps.sh)"
	[ -w "$uefi_vars" ] || die "cannot write the variable store $uefi_vars"
	boot=(-machine q35,smm=on
	      -global driver=cfi.pflash01,property=secure,value=on
	      -drive "if=pflash,format=raw,unit=0,readonly=on,file=$ovmf"
	      -drive "if=pflash,format=raw,unit=1,file=$uefi_vars")
else
	[ -n "$kernel" ] && [ -n "$initrd" ] || usage
	[ -r "$kernel" ] || die "cannot read kernel $kernel"
	[ -r "$initrd" ] || die "cannot read initramfs $initrd"
fi

if [ -z "$cpus" ]; then
	cpus=$((${#icount[@]} ? 1 : 2))
fi
status=${log%.log}.status
rm -f "$log" "$status"
case $emulator in
trixie | debian13)
	qenv=$("$(dirname "$0")/fetch-qemu.sh" | tail -n 1) ||
		die "cannot set up Debian 13's QEMU (tests/vm/fetch-qemu.sh)"
	# shellcheck disable=SC1090
	. "$qenv"
	if [ "$emulator" = debian13 ]; then
		QEMU_X86=$QEMU_X86_DEBIAN QEMU_ARM64=$QEMU_ARM64_DEBIAN
	fi
	read -r -a qemu_x86 <<<"$QEMU_X86"
	read -r -a qemu_arm64 <<<"$QEMU_ARM64" ;;
system)
	qemu_x86=(qemu-system-x86_64) qemu_arm64=(qemu-system-aarch64) ;;
*)
	usage ;;
esac
case $arch in
amd64)
	qemu=("${qemu_x86[@]}" -cpu max) console=ttyS0
	serial=(-serial "file:$log" -serial "file:$status") ;;
arm64)
	# One UART on "virt": the guest reports its status on the console.
	qemu=("${qemu_arm64[@]}" -M virt -cpu max) console=ttyAMA0
	serial=(-serial "file:$log")
	status=$log ;;
*)
	die "unknown architecture $arch" ;;
esac

[ -n "$uefi_vars" ] ||
	boot=(-kernel "$kernel" -initrd "$initrd"
	      -append "console=$console panic=-1 $oops loglevel=$loglevel $append")

# thread=multi: one host thread per vCPU, running at the same time, so
# that races between CPUs (code patched while another CPU runs it) can
# happen. icount needs one thread for all vCPUs. -nodefaults: no default
# VGA card, for which QEMU would look for display modules and find this
# machine's (7.2) ones.
threads=multi
[ "${#icount[@]}" = 0 ] || threads=single
# Only kernel lines (timestamped) count, so guest.sh may print these words;
# the status channel has the whole kernel log, whatever the console loglevel.
# awk, not grep -m 1: no match is the normal case, not a failure, and it
# reads to the end (no SIGPIPE for cat); a file it cannot read stops us.
# The files exist (made empty before QEMU starts); if one cannot be read,
# the verdict below still fails on the missing F2-STATUS: || true only
# keeps set -e from ending the script before it says so.
find_kernel_bug() {
	{ cat "$log" "$status" 2>/dev/null || true; } | tr -d '\r' | awk -v expected="$expected_oops" '
	# (the console and the status channel both carry the kernel log:
	# each copy of the marker opens a window of its own)
	expected && /\[ *[0-9]+\.[0-9]+\] f2_oops: .* oopses in notify_change/ {
		inside = 1; n = 0; split("", seen); next
	}
	# The expected oops: its own lines are exempt once each (the NULL
	# dereference, the Oops line, the call trace), up to its end marker
	# (at most 150 lines); any other report in that window still counts.
	inside && /---\[ end trace/ { inside = 0; next }
	inside && ++n > 150 { inside = 0 }
	inside && /\[ *[0-9]+\.[0-9]+\] .*(WARNING:|BUG:|kernel BUG at|Oops|Call Trace|Kernel panic|blocked for more than|detected stall)/ {
		k = /BUG: kernel NULL pointer dereference/ ? "null" : /Oops/ ? "oops" : /Call Trace/ ? "trace" : ""
		if (k != "" && !seen[k]++) next
		if (!found) { print; found = 1 }
		next
	}
	inside { next }
	!found && /\[ *[0-9]+\.[0-9]+\] .*(WARNING:|BUG:|kernel BUG at|Oops|Call Trace|Kernel panic|blocked for more than|detected stall)/ {
		print; found = 1
	}'
}

start=$SECONDS
rc=0
: >"$log"
: >"$status"
timeout -k 10 "$timeout" "${qemu[@]}" \
	-accel tcg,thread=$threads -m "$mem" -smp "$cpus" "${icount[@]}" \
	"${boot[@]}" -nodefaults -display none -monitor none -no-reboot "${serial[@]}" \
	"$@" </dev/null &
qpid=$!
# Whatever stops this script stops the guest too. kill fails when QEMU
# has already exited, the normal case: || true keeps that from becoming
# the script's exit status under set -e.
trap 'kill "$qpid" 2>/dev/null || true' EXIT INT TERM
# Watch the guest: one that prints nothing for $idle seconds (both CPUs
# spinning with interrupts off report nothing), or whose kernel reported
# a bug that did not end it (a soft lockup, a hung task), is stopped now
# rather than at the deadline; the bug report gets 15 s to be complete.
stopped='' size=-1 quiet=$SECONDS bug_at=''
while kill -0 "$qpid" 2>/dev/null; do
	sleep 2
	now=$(cat "$log" "$status" 2>/dev/null | wc -c)
	[ "$now" != "$size" ] && size=$now quiet=$SECONDS
	if [ "$idle" -gt 0 ] && [ $((SECONDS - quiet)) -ge "$idle" ]; then
		stopped="the guest printed nothing for ${idle}s"
	elif [ -z "$bug_at" ] && [ -n "$(find_kernel_bug)" ]; then
		bug_at=$SECONDS
	elif [ -n "$bug_at" ] && [ $((SECONDS - bug_at)) -ge 15 ]; then
		stopped="stopped 15s after a kernel bug report"
	fi
	if [ -n "$stopped" ]; then
		kill "$qpid" 2>/dev/null
		break
	fi
done
wait "$qpid" || rc=$?
trap - EXIT INT TERM
elapsed=$((SECONDS - start))

guest_rc=$(sed -n 's/^F2-STATUS \([0-9]*\).*/\1/p' "$status" | tail -n 1)
kernel_bug=$(find_kernel_bug)

if [ -n "$kernel_bug" ]; then
	verdict=1 why="kernel: $kernel_bug"
elif [ -n "$stopped" ]; then
	verdict=2 why="$stopped"
elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	verdict=2 why="timed out after ${timeout}s"
elif [ -z "$guest_rc" ]; then
	if grep -q '^F2-INIT' "$status"; then
		verdict=2 why="VM died during guest.sh (qemu exit $rc)"
	else
		verdict=2 why="VM died before /init ran (qemu exit $rc)"
	fi
elif [ "$guest_rc" -ne 0 ]; then
	verdict=1 why="guest.sh exited $guest_rc"
else
	verdict=0 why="guest.sh exited 0"
fi

echo "console log: $log"
case $verdict in
0) echo "verdict: PASS ($why, ${elapsed}s)" ;;
1) echo "verdict: FAIL ($why, ${elapsed}s)" ;;
2) echo "verdict: ERROR ($why, ${elapsed}s)" ;;
esac
exit "$verdict"
