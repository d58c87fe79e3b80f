#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the test program natively on this machine's kernel (which
# has fchmodat2: the oracle), then Debian 12's kernel in QEMU with the
# module. Every TAP line counts; the last line is "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib.sh"

pass=0 fail=0 skip=0
rows=()

# add LABEL LOG RC: count LOG's TAP lines into the totals. A run that
# failed (RC != 0) without any "not ok" line (a crash, a dead VM, a kernel
# WARNING, no fchmodat2 at all) counts as one failure.
add() {
	local p f s

	read -r p f s < <(f2_tap_count "$2")
	[ "$3" != 0 ] && [ "$f" = 0 ] && f=1
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	rows+=("$(printf '%-34s %6d %6d %6d' "$1" "$p" "$f" "$s")")
}

echo "== native: $(uname -r) (the oracle)"
mkdir -p "$B/native"
for bits in 64 32; do
	prog=$B/fchmodat2_test
	[ "$bits" = 32 ] && prog=$B/fchmodat2_test32
	log=$B/native/test$bits.tap
	"$prog" >"$log" 2>&1
	rc=$?
	grep -E '^not ok|^# Totals|fchmodat2' "$log" | tail -n 5
	add "native $bits-bit" "$log" "$rc"
done

echo "== VM: Debian 12 (6.1), module loaded"
if f2_kernel 6.1; then
	out=$B/$ABI
	mkdir -p "$out"
	if f2_build_module "$out/module" && f2_build_hog "$out/hog"; then
		f2_stage "$out/f2" "$top/tests/guest/check.sh" \
			"$B/fchmodat2_test" "$B/fchmodat2_test32" \
			"$B/unload_test" "$B/modload" "$out/module/fchmodat2.ko" \
			"$out/hog/f2_hog.ko"
		f2_boot "$out/f2" "$out/initrd.cpio.gz" "$out/console.log" \
			-t 900
		rc=$?
		tr -d '\r' <"$out/console.log" |
			grep -E '^not ok|^# Totals|WARNING:|BUG:|Oops'
		add "VM $KREL" "$out/console.log" "$rc"
	else
		echo "module build against $KREL failed"
		fail=$((fail + 1))
		rows+=("$(printf '%-34s %6s %6d %6s' "VM $KREL: build" - 1 -)")
	fi
else
	echo "cannot fetch Debian 12's kernel"
	fail=$((fail + 1))
	rows+=("$(printf '%-34s %6s %6d %6s' "VM 6.1: fetch" - 1 -)")
fi

echo
printf '%-34s %6s %6s %6s\n' "where" pass fail skip
printf '%s\n' "${rows[@]}"
echo "$((pass)) passed, $((fail)) failed"
[ "$fail" = 0 ]
