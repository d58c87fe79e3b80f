#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl --no-tree -f on every C, header and assembly file of the
# project, one TAP line each. checkpatch.pl comes from Debian's
# linux-source package (the machine's apt sources), cached in $f2_cache (tests/vm/cache.sh).
# "ENOSYS means 'invalid syscall nr'" is checkpatch's advice for kernel
# code; the test programs and the library use ENOSYS for exactly that.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
STEP_PREFIX=checkpatch
# shellcheck source=tests/guest/steps.sh
. "$top/tests/guest/steps.sh"

# shellcheck source=tests/vm/cache.sh
. "$top/tests/vm/cache.sh"
cache=$f2_cache/checkpatch
cp=$cache/scripts/checkpatch.pl
if [ ! -x "$cp" ]; then
	mkdir -p "$cache/dl"
	(cd "$cache/dl" && apt-get download linux-source-6.1) >"$cache/dl.log" 2>&1 ||
		{ cat "$cache/dl.log"; step 1 "cannot download linux-source-6.1"; echo "1..$steps"; exit 1; }
	dpkg-deb --fsys-tarfile "$cache"/dl/linux-source-6.1_*.deb |
		tar -xOf - ./usr/src/linux-source-6.1.tar.xz |
		tar -xJf - -C "$cache" --strip-components=1 \
			linux-source-6.1/scripts/checkpatch.pl \
			linux-source-6.1/scripts/spelling.txt \
			linux-source-6.1/scripts/const_structs.checkpatch
	rm -rf "$cache/dl"
fi

cd "$top" || exit 1
# The files to check; a tree git cannot list (a copy without .git) is a
# failure, not an empty pass.
files=$(git ls-files -co --exclude-standard -- '*.c' '*.h' '*.S') && [ -n "$files" ] ||
	{ step 1 "git ls-files lists no C, header or assembly file"; echo "1..$steps"; exit 1; }
while read -r f; do
	out=$("$cp" --no-tree -q --terse -f "$f" 2>&1 |
		grep -v -e "ENOSYS means 'invalid syscall nr'" -e '^total:')
	if [ -z "$out" ]; then
		step 0 "$f"
	else
		step 1 "$f"
		printf '# %s\n' "$out"
	fi
done <<<"$files"
echo "1..$steps"
[ "$failed" = 0 ]
