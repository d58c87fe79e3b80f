#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: a benchmark, not a test. Boots Debian 12's kernel (x86_64,
# then arm64) once each under QEMU's -icount shift=0,sleep=off (one guest
# nanosecond per instruction: deterministic) and prints guest nanoseconds
# per call and their ratios.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# series | bench binary | getpid target (what the mechanism allows)
runs=(
	"6.1|$B/bench|<=|1.30"
	"6.1-arm64|$B/arm64/bench|<=|1.02"
)
[ -n "${F2_SERIES:-}" ] && mapfile -t runs < <(printf '%s\n' "${runs[@]}" |
	grep -E "^($(tr ' ' '|' <<<"$F2_SERIES"))\|")

status=0
for r in "${runs[@]}"; do
	IFS='|' read -r series prog cmp target <<<"$r"
	f2_kernel "$series" || exit 1
	out=$B/$ABI
	[ "$DEBARCH" = amd64 ] || out=$B/$ABI-$DEBARCH
	mkdir -p "$out"
	f2_build_module "$out/module" >"$out/bench-build.log" 2>&1 ||
		{ cat "$out/bench-build.log"; exit 1; }
	f2_stage "$out/bench" "$top/tests/guest/bench.sh" "$prog" \
		"$out/module/fchmodat2.ko"
	f2_boot "$out/bench" "$out/bench.cpio.gz" "$out/bench.log" -c -s 1 \
		-t 900 || { status=1; continue; }

	tr -d '\r' <"$out/bench.log" | awk -v krel="$KREL" -v gcmp="$cmp" \
		-v gtarget="$target" '
	$1 == "BENCH" { ns[$2] = $3 }
	function row(what, v) { printf "  %-58s %9.1f\n", what, v }
	function ratio(what, a, b, target, cmp,   r, ok) {
		r = a / b
		ok = (cmp == "<=") ? r <= target : r >= target
		printf "  %-46s %6.3f   target %s %.2f: %s\n", what, r, cmp,
			target, ok ? "met" : "MISSED"
	}
	END {
		printf "\nGuest nanoseconds per call on %s (QEMU TCG, -icount shift=0):\n", krel
		row("syscall(SYS_getpid), module not loaded", ns["getpid_without"])
		row("syscall(SYS_getpid), module loaded", ns["getpid_with"])
		row("syscall(SYS_getpid), module unloaded again", ns["getpid_after"])
		row("fchmodat2(AT_SYMLINK_NOFOLLOW) through the module", ns["fchmodat2_with"])
		row("plain fchmodat, module loaded", ns["fchmodat_with"])
		row("fchmodat2 with an empty path (ENOENT): dispatch", ns["enoent2_with"])
		row("fchmodat with an empty path (ENOENT)", ns["enoent_with"])
		row("glibc 2.36 emulation (O_PATH+fstatat+/proc chmod+close)", ns["emulation_without"])
		print "Ratios:"
		ratio("getpid, module loaded / not loaded", ns["getpid_with"], ns["getpid_without"], gtarget, gcmp)
		ratio("fchmodat2 via module / plain fchmodat", ns["fchmodat2_with"], ns["fchmodat_with"], 1.05, "<=")
		ratio("emulation / fchmodat2 via module", ns["emulation_without"], ns["fchmodat2_with"], 3.3, ">=")
	}'
done
exit "$status"
