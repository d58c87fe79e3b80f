#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: on a fresh Debian 12 machine, install what is needed, build
# the module for Debian 12's kernel and show it at work in QEMU.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

if [ "${F2_NO_DEPS:-}" != 1 ]; then
	"$top/tests/install-deps.sh" || exit 1
fi
make -s -C "$top" tests || exit 1
echo "Fetching Debian 12's newest kernel (cached after the first time)..."
f2_kernel 6.1 || exit 1
out=$B/demo-$KREL
mkdir -p "$out"
echo "Building fchmodat2.ko for $KREL..."
f2_build_module "$out/module" >"$out/demo-build.log" 2>&1 ||
	{ cat "$out/demo-build.log"; exit 1; }
f2_stage "$out/demo" "$top/tests/guest/demo.sh" "$B/f2call" \
	"$out/module/fchmodat2.ko"
echo "Booting $KREL in QEMU (about 15 seconds)..."
f2_boot "$out/demo" "$out/demo.cpio.gz" "$out/demo.log" -t 300 -L 3 >"$out/demo.verdict"
rc=$?
# The guest's words, without the kernel's boot messages.
tr -d '\r' <"$out/demo.log" | sed -n '/^=====/,$p' | grep -v -e '^\[ *[0-9]' -e '^F2-'
cat "$out/demo.verdict"
exit "$rc"
