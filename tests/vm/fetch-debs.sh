#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-debs.sh SUITE ROOT PACKAGE...: download Debian SUITE's PACKAGEs
# (amd64, or F2_DEBS_ARCH; newest, with their -security updates) and unpack them all into
# ROOT, without installing anything: a foreign release's userland for the
# guest (Debian 13's glibc, coreutils and apparmor_parser), run there
# through its own loader. Dependencies are not resolved: name them.
#
# A private apt state under $f2_cache/vm/debs-SUITE (tests/vm/cache.sh), whose sources are
# derived from this machine's apt configuration (as fetch-kernel.sh does);
# indexes are refreshed when older than a day, never with F2_OFFLINE=1.
# The .debs stay cached there. Prints each package's name and version.
set -euo pipefail

die() { echo "fetch-debs.sh: $*" >&2; exit 1; }
[ $# -ge 3 ] || die "usage: fetch-debs.sh SUITE ROOT PACKAGE..."
suite=$1 root=$2
shift 2
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/vm/cache.sh
. "$repo/tests/vm/cache.sh"
arch=${F2_DEBS_ARCH:-amd64}
state=$f2_cache/vm/debs-$suite
[ "$arch" = amd64 ] || state=$state-$arch
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/debs"
exec 9>"$state/lock"
flock 9
# shellcheck source=tests/vm/apt-mirrors.sh
. "$repo/tests/vm/apt-mirrors.sh"
private_apt "$state" "$arch" <<SOURCES
deb [signed-by=$keyring] $debian_uri $suite main
deb [signed-by=$keyring] $security_uri $suite-security main
SOURCES
# The indexes are needed only for what is not cached yet.
need=()
for p in "$@"; do
	compgen -G "$state/debs/${p}_*.deb" >/dev/null || need+=("$p")
done
if [ "${#need[@]}" -gt 0 ]; then
	[ "${F2_OFFLINE:-0}" != 1 ] || die "F2_OFFLINE=1 but not cached: ${need[*]}"
	if [ -z "$(find "$state/updated" -mmin -1440 2>/dev/null)" ] ||
		! compgen -G "$state/lists/*Packages*" >/dev/null; then
		apt-get "${apt_opts[@]}" update >"$state/update.log" 2>&1 ||
			{ cat "$state/update.log" >&2; die "apt-get update failed"; }
		! grep -Eq 'NO_PUBKEY|EXPKEYSIG|BADSIG|GPG error' "$state/update.log" ||
			{ cat "$state/update.log" >&2; die "signature check failed"; }
		touch "$state/updated"
	fi
	(cd "$state/debs" && apt-get "${apt_opts[@]}" download "${need[@]}") >&2 ||
		die "apt-get download ${need[*]} failed"
fi
rm -rf "$root"
mkdir -p "$root"
for p in "$@"; do
	deb=$(compgen -G "$state/debs/${p}_*.deb" | sort -V | tail -n 1)
	dpkg-deb -x "$deb" "$root"
	echo "$p $(dpkg-deb -f "$deb" Version)"
done
