#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the Debian package (dpkg-buildpackage -b -us -uc) from a copy of
# the tree and check its contents. TAP output; used by make check.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

n=0 failed=0
t() { # t <exit code> <description>
	n=$((n + 1))
	if [ "$1" = 0 ]; then echo "ok $n package: $2"; else
		echo "not ok $n package: $2"; failed=$((failed + 1)); fi
}

ver=$(f2_version)
dir=$B/pkg
rm -rf "$dir"
mkdir -p "$dir/src"
# What git tracks (and new files not ignored), without the build tree.
(cd "$top" && git ls-files -co --exclude-standard | tar -cf - -T -) |
	tar -xf - -C "$dir/src"
(cd "$dir/src" && dpkg-buildpackage -b -us -uc) >"$dir/build.log" 2>&1
t $? "dpkg-buildpackage -b -us -uc"
deb=$dir/fchmodat2-dkms_${ver}_all.deb
[ -f "$deb" ]
t $? "it makes fchmodat2-dkms_${ver}_all.deb"
dpkg-deb -c "$deb" 2>/dev/null | awk '{ print $6 }' >"$dir/contents"
for f in dkms.conf Kbuild $(cd "$top" && git ls-files module); do
	grep -qx "./usr/src/fchmodat2-$ver/$f" "$dir/contents"
	t $? "it ships /usr/src/fchmodat2-$ver/$f"
done
cmp -s "$top/dkms.conf" <(dpkg-deb --fsys-tarfile "$deb" |
	tar -xOf - "./usr/src/fchmodat2-$ver/dkms.conf")
t $? "its dkms.conf is the project's"
[ "$(dpkg-deb -f "$deb" Version)" = "$ver" ]
t $? "its version is dkms.conf's PACKAGE_VERSION ($ver)"
dpkg-deb -f "$deb" Depends | grep -q 'dkms'
t $? "it depends on dkms"
echo "1..$n"
[ "$failed" = 0 ]
