#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# emulator-check.sh [TOGGLES]: why the guests run on Debian 13's QEMU.
# Boots Debian 12's stock 6.1 kernel (no module of ours) on two vCPUs with
# multi-threaded TCG, once on this machine's QEMU (Debian 12: 7.2) and once
# on Debian 13's (10.0, tests/vm/fetch-qemu.sh), and in each runs
# tests/guest/toggle.sh: four threads in system calls while the sys_enter
# tracepoint is toggled TOGGLES times (default 2000). See
# tests/vm/README.md for what QEMU 7.2 does with it. Prints one verdict per
# emulator; exits 0 when Debian 13's QEMU passes (7.2's result is shown,
# not judged: it is the emulator's bug, not ours). make emulator-check.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

toggles=${1:-2000}
f2_kernel 6.1 || exit 1
rc=0
for q in system trixie; do
	out=$B/emulator-check/$q
	mkdir -p "$out"
	echo "TOGGLES=$toggles" >"$out/stress.conf"
	f2_stage "$out/f2" "$top/tests/guest/toggle.sh" "$B/stress" \
		"$top/tests/guest/steps.sh" "$out/stress.conf"
	if [ "$q" = system ]; then
		name="this machine's $(qemu-system-x86_64 --version | head -n 1)"
	else
		# shellcheck disable=SC1090
		. "$("$top/tests/vm/fetch-qemu.sh" | tail -n 1)"
		name="Debian 13's QEMU $QEMU_VERSION"
	fi
	echo "== $name, -smp 2, multi-threaded TCG, $KREL, stock"
	f2_boot "$out/f2" "$out/initrd.cpio.gz" "$out/console.log" -q "$q" \
		-t 900 -I 120 >"$out/verdict"
	r=$?
	tr -d '\r' <"$out/console.log" | grep -E '^(not )?ok |toggles,|soft lockup' | tail -n 8
	cat "$out/verdict"
	[ "$q" = trixie ] && [ "$r" != 0 ] && rc=1
done
exit "$rc"
