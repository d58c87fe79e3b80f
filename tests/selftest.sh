#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# selftest.sh OUTDIR: mainline's own test of this system call,
# tools/testing/selftests/fchmodat2/fchmodat2_test.c, as Debian 13 ships
# it in linux-source-6.12, built static for the guests: OUTDIR/
# fchmodat2_selftest and fchmodat2_selftest32 (x86_64 and i386), and
# OUTDIR/arm64/ the same for arm64 and armhf. The sources are taken from
# the package's tarball once and kept in the cache (tests/vm/cache.sh);
# OUTDIR/selftest.version names the package version they came from.
#
# Built as upstream's Makefile builds it, except: without
# -fsanitize=address,undefined (which cannot link statically), with
# -static (the guests have no C library), and with __NR_fchmodat2 (452 on
# all four ABIs) given on the command line, as 6.12's UAPI headers
# (upstream's KHDR_INCLUDES) would give it: Debian 12's have none.
set -euo pipefail

out=${1:?usage: selftest.sh OUTDIR}
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/vm/cache.sh
. "$top/tests/vm/cache.sh"
src=$f2_cache/selftest-6.12
rel=tools/testing/selftests

if [ ! -f "$src/version" ]; then
	root=$f2_cache/selftest-6.12.deb
	"$top/tests/vm/fetch-debs.sh" trixie "$root" linux-source-6.12 \
		>"$root.version"
	tarball=$(compgen -G "$root/usr/src/linux-source-6.12.tar.*" | head -n 1)
	[ -n "$tarball" ] || { echo "selftest.sh: no tarball in linux-source-6.12" >&2; exit 1; }
	rm -rf "$src.new"
	mkdir -p "$src.new"
	tar -xf "$tarball" -C "$src.new" --strip-components=1 --wildcards \
		"*/$rel/fchmodat2/*" "*/$rel/kselftest.h"
	mv "$root.version" "$src.new/version"
	rm -rf "$root" "$src"
	mv "$src.new" "$src"
fi

flags=(-Wall -O2 -static -D__NR_fchmodat2=452)
mkdir -p "$out/arm64"
c=$src/$rel/fchmodat2/fchmodat2_test.c
gcc "${flags[@]}" -o "$out/fchmodat2_selftest" "$c"
gcc -m32 -isystem "/usr/include/$(gcc -print-multiarch)" "${flags[@]}" \
	-o "$out/fchmodat2_selftest32" "$c"
aarch64-linux-gnu-gcc "${flags[@]}" -o "$out/arm64/fchmodat2_selftest" "$c"
arm-linux-gnueabihf-gcc "${flags[@]}" -o "$out/arm64/fchmodat2_selftest32" "$c"
cp "$src/version" "$out/selftest.version"
