#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# package.sh [RELEASE]: build the Debian packages (dpkg-buildpackage -b -us
# -uc) from a copy of the tree, as a user of RELEASE builds them, and check
# them: lintian --pedantic, their contents, a program built against them.
# RELEASE: bookworm (Debian 12: the default) or bullseye (Debian 11):
# with this machine's own tools when it runs RELEASE, else in a root of
# RELEASE (tests/userspace/build-root.sh, f2_release_root), with its
# dpkg-dev, debhelper, dkms, lintian, gcc and glibc, through f2_chroot.
# TAP output; used by make check. The packages stay in build/pkg (this
# machine's release) or the root's /src/pkg.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

release=${1:-bookworm}
# the one shell TAP library: step EXIT DESCRIPTION
STEP_PREFIX="package $release"
# shellcheck source-path=SCRIPTDIR source=guest/steps.sh
. "$(dirname "$0")/guest/steps.sh"

ver=$(f2_version)
case $release in
bookworm | bullseye) ;;
*) echo "package.sh: unknown release $release (bookworm, bullseye)" >&2; exit 2 ;;
esac
# this machine's tools if it runs RELEASE, else a root of RELEASE
root=$(f2_release_root "$release") ||
	{ step 1 "cannot make the $release root"; echo "1..$steps"; exit 1; }
dir=$B/pkg
[ -n "$root" ] && dir=$root/src/pkg
# in_release CMD...: CMD with the release's own tools (paths: in_path)
in_release() {
	if [ -n "$root" ]; then f2_chroot "$root" "$@"; else "$@"; fi
}
in_path() { echo "${1#"$root"}"; }
f2_build_debs "$dir" "" "$root" >"$B/pkg-$release.log" 2>&1
step $? "dpkg-buildpackage -b -us -uc ($(in_release dpkg-query -W \
	-f '${Package} ${Version}\n' dpkg-dev debhelper dkms gcc libc6 | paste -sd,))"
# lintian --pedantic, info tags included: clean but for the placeholder
# Maintainer address (until the project has a list)
in_release sh -c 'cd "$1" && lintian --pedantic -I \
	--suppress-tags bogus-mail-host,bogus-mail-host-in-debian-changelog \
	./*.changes' - "$(in_path "$dir")" >"$dir/lintian.log" 2>&1
rc=$?
# (tags: E W I P X O; Debian 11's lintian ends with an "N: 1 hint
# overridden" line, which is none)
tags=$(grep -E '^[EWIPXOC]: ' "$dir/lintian.log")
[ "$rc" = 0 ] && [ -z "$tags" ]
step $? "lintian --pedantic -I ($(in_release lintian --version)): no tag but the placeholder Maintainer address's${tags:+: $(echo "$tags" | tr '\n' ';')}"
deb=$dir/fchmodat2-dkms_${ver}_all.deb
[ -f "$deb" ]
step $? "it makes fchmodat2-dkms_${ver}_all.deb"
dpkg-deb -c "$deb" 2>/dev/null | awk '{ print $6 }' >"$dir/contents"
for f in dkms.conf Kbuild $(cd "$top" && git ls-files module); do
	grep -qx "./usr/src/fchmodat2-$ver/$f" "$dir/contents"
	step $? "it ships /usr/src/fchmodat2-$ver/$f"
done
# DKMS builds for every kernel it is given: no BUILD_EXCLUSIVE_* (Debian
# 12's DKMS fails the installation of a kernel it excludes a module for),
# F2_DKMS=1 for Kbuild's placeholder where the module is not supported
# (shown by the check lane: the real module on every module row, the
# placeholder on 6.12)
! grep -q '^[^#]*BUILD_EXCLUSIVE' "$top/dkms.conf" &&
	(set +u; . "$top/dkms.conf" && [[ ${MAKE[0]} == *" F2_DKMS=1 modules" ]])
step $? "dkms.conf excludes no kernel and asks Kbuild for the placeholder where unsupported"
# make dkms-src (the README's DKMS path) installs what the package ships
make -s -C "$dir/src" DESTDIR="$dir/dkms-src" dkms-src >/dev/null 2>&1 &&
	diff <(cd "$dir/dkms-src" && find . -type f | sort) \
		<(grep "^\./usr/src/.*[^/]\$" "$dir/contents" | sort)
step $? "make dkms-src installs exactly the files the package ships in /usr/src"
cmp -s "$top/dkms.conf" <(dpkg-deb --fsys-tarfile "$deb" |
	tar -xOf - "./usr/src/fchmodat2-$ver/dkms.conf")
step $? "its dkms.conf is the project's"
[ "$(dpkg-deb -f "$deb" Version)" = "$ver" ]
step $? "its version is dkms.conf's PACKAGE_VERSION ($ver)"
dpkg-deb -f "$deb" Depends | grep -q 'dkms'
step $? "it depends on dkms"
# The userspace packages: their files, and that they work once unpacked.
arch=$(dpkg --print-architecture)
ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
ux=$dir/root
rm -rf "$ux"
for p in libfchmodat2-0 libfchmodat2-dev fchmodat2ctl; do
	d=$dir/${p}_${ver}_$arch.deb
	[ -f "$d" ] && dpkg-deb -x "$d" "$ux"
	step $? "it makes ${p}_${ver}_$arch.deb"
done
for f in usr/lib/$ma/libfchmodat2.so.0 usr/lib/$ma/fchmodat2/libfchmodat2-preload.so \
	 usr/lib/$ma/libfchmodat2.so usr/lib/$ma/libfchmodat2.a \
	 usr/lib/$ma/pkgconfig/fchmodat2.pc usr/include/fchmodat2.h \
	 usr/sbin/fchmodat2ctl usr/share/man/man8/fchmodat2ctl.8.gz \
	 usr/share/man/man3/fchmodat2.3.gz; do
	[ -e "$ux/$f" ]
	step $? "the packages ship /$f"
done
in_release "$(in_path "$ux")/usr/sbin/fchmodat2ctl" --version | grep -q "$ver"
step $? "the packaged fchmodat2ctl runs and reports version $ver"
cat >"$dir/use.c" <<'C'
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <fchmodat2.h>
/* use raw|compat PATH MODE: exit 0, or the errno */
int main(int argc, char **argv)
{
	int (*f)(int, const char *, mode_t, int) = fchmodat2;

	if (argc != 4)
		return 255;
	if (!strcmp(argv[1], "compat"))
		f = fchmodat2_compat;
	return f(AT_FDCWD, argv[2], strtoul(argv[3], NULL, 8),
		 AT_SYMLINK_NOFOLLOW) ? errno : 0;
}
C
: >"$dir/use.file"
chmod 0644 "$dir/use.file"
u=$(in_path "$ux") d=$(in_path "$dir")
in_release gcc -I"$u/usr/include" -o "$d/use" "$d/use.c" -L"$u/usr/lib/$ma" -lfchmodat2
step $? "a program builds against libfchmodat2-dev"
# This machine's kernel may lack fchmodat2: then the raw call is ENOSYS
# and changes nothing, and the compat call emulates it (/proc is mounted).
in_release env LD_LIBRARY_PATH="$u/usr/lib/$ma" "$d/use" raw "$d/use.file" 600
rc=$?
f2_host_oracle "$top/build/fchmodat2_test" >"$dir/oracle"
oracle=$?
if [ "$oracle" = 2 ]; then
	step 1 "this machine's fchmodat2 answers as expected: $(cat "$dir/oracle")"
elif [ "$oracle" = 0 ]; then
	[ "$rc" = 0 ] && [ "$(stat -c %a "$dir/use.file")" = 600 ]
	step $? "its fchmodat2() changes the mode (native fchmodat2 here; got $rc)"
else
	[ "$rc" = 38 ] && [ "$(stat -c %a "$dir/use.file")" = 644 ]
	step $? "its fchmodat2() is ENOSYS and changes nothing (no fchmodat2 here; got $rc)"
fi
in_release env LD_LIBRARY_PATH="$u/usr/lib/$ma" "$d/use" compat "$d/use.file" 640 &&
	[ "$(stat -c %a "$dir/use.file")" = 640 ]
step $? "its fchmodat2_compat() changes the mode"
echo "1..$steps"
[ "$failed" = 0 ]
