#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# emulator-check.sh [TOGGLES [SERIES]]: why the guests run on Debian 13's
# QEMU rebuilt with tests/vm/qemu-patches/. Boots a stock Debian kernel
# (SERIES, default 6.1-rt, the PREEMPT_RT flavour of Debian 12's 6.1, where
# 10.0's bug showed most; no module of ours) on two vCPUs with
# multi-threaded TCG, on this machine's QEMU (Debian 12: 7.2), on Debian
# 13's binary (10.0) and on the rebuilt one (tests/vm/fetch-qemu.sh), and
# in each runs
# tests/guest/toggle.sh: four threads in system calls while the sys_enter
# tracepoint is toggled TOGGLES times (default 4000). The host is kept
# busy meanwhile (a busy loop for every two host CPUs), as a loaded CI
# machine is: that is when 10.0 shows its bug. See tests/vm/README.md.
# Prints one verdict per emulator; exits 0 when the rebuilt QEMU passes
# (the others' results are shown, not judged: their bug is not ours).
# make emulator-check.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

toggles=${1:-4000}
f2_kernel "${2:-6.1-rt}" || exit 1
# shellcheck disable=SC1090
. "$("$top/tests/vm/fetch-qemu.sh" | tail -n 1)" || exit 1
busy=()
for _ in $(seq $((($(nproc) + 1) / 2))); do
	sh -c 'while :; do :; done' &
	busy+=($!)
done
trap 'kill "${busy[@]}" 2>/dev/null' EXIT
echo "# host: $(nproc) CPUs, ${#busy[@]} kept busy"
rc=0
for q in system debian13 trixie; do
	out=$B/emulator-check/$q
	mkdir -p "$out"
	echo "TOGGLES=$toggles" >"$out/stress.conf"
	f2_stage "$out/f2" "$top/tests/guest/toggle.sh" "$B/stress" \
		"$top/tests/guest/steps.sh" "$out/stress.conf"
	case $q in
	system) name="this machine's $(qemu-system-x86_64 --version | head -n 1)" ;;
	debian13) name="Debian 13's QEMU $QEMU_VERSION" ;;
	trixie) name="QEMU $QEMU_VERSION rebuilt with $(cd "$top/tests/vm/qemu-patches" && echo *.patch)" ;;
	esac
	echo "== $name, -smp 2, multi-threaded TCG, $KREL, stock"
	f2_boot "$out/f2" "$out/initrd.cpio.gz" "$out/console.log" -q "$q" \
		-t 1800 -I 120 >"$out/verdict"
	r=$?
	tr -d '\r' <"$out/console.log" | grep -E '^ *(not )?ok |toggles,|soft lockup' | tail -n 8
	cat "$out/verdict"
	[ "$q" = trixie ] && [ "$r" != 0 ] && rc=1
done
exit "$rc"
