#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: a benchmark, not a test. Boots Debian 12's kernel once under
# QEMU's -icount shift=0,sleep=off (one guest nanosecond per instruction:
# deterministic) and prints guest nanoseconds per call and their ratios.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

f2_kernel 6.1 || exit 1
out=$B/$ABI
f2_build_module "$out/module" || exit 1
f2_stage "$out/bench" "$top/tests/guest/bench.sh" "$B/bench" \
	"$out/module/fchmodat2.ko"
f2_boot "$out/bench" "$out/bench.cpio.gz" "$out/bench.log" -c -s 1 -t 900 ||
	exit 1

tr -d '\r' <"$out/bench.log" | awk -v krel="$KREL" '
	$1 == "BENCH" { ns[$2] = $3 }
	function row(what, v) { printf "  %-58s %9.1f\n", what, v }
	function ratio(what, a, b, target, cmp,   r, ok) {
		r = a / b
		ok = (cmp == "<=") ? r <= target : r >= target
		printf "  %-46s %6.2f   target %s %.2f: %s\n", what, r, cmp,
			target, ok ? "met" : "MISSED"
	}
	END {
		printf "Guest nanoseconds per call on %s (QEMU TCG, -icount shift=0):\n", krel
		row("syscall(SYS_getpid), module not loaded", ns["getpid_without"])
		row("syscall(SYS_getpid), module loaded", ns["getpid_with"])
		row("syscall(SYS_getpid), module unloaded again", ns["getpid_after"])
		row("fchmodat2(AT_SYMLINK_NOFOLLOW) through the module", ns["fchmodat2_with"])
		row("plain fchmodat (268), module loaded", ns["fchmodat_with"])
		row("glibc 2.36 emulation (O_PATH+fstatat+/proc chmod+close)", ns["emulation_without"])
		print "Ratios:"
		ratio("getpid, module loaded / not loaded", ns["getpid_with"], ns["getpid_without"], 1.30, "<=")
		ratio("fchmodat2 via module / plain fchmodat", ns["fchmodat2_with"], ns["fchmodat_with"], 1.05, "<=")
		ratio("emulation / fchmodat2 via module", ns["emulation_without"], ns["fchmodat2_with"], 3.3, ">=")
	}'
