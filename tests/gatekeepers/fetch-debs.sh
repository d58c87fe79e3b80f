#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-debs.sh SUITE ROOT PACKAGE...: download Debian SUITE's PACKAGEs
# (amd64, newest, with their -security updates) and unpack them all into
# ROOT, without installing anything: a foreign release's userland for the
# guest (Debian 13's glibc, coreutils and apparmor_parser), run there
# through its own loader. Dependencies are not resolved: name them.
#
# A private apt state under <repo>/.cache/vm/debs-SUITE, whose sources are
# derived from this machine's apt configuration (as fetch-kernel.sh does);
# indexes are refreshed when older than a day, never with F2_OFFLINE=1.
# The .debs stay cached there. Prints each package's name and version.
set -euo pipefail

die() { echo "fetch-debs.sh: $*" >&2; exit 1; }
[ $# -ge 3 ] || die "usage: fetch-debs.sh SUITE ROOT PACKAGE..."
suite=$1 root=$2
shift 2
repo=$(cd "$(dirname "$0")/../.." && pwd)
state=$repo/.cache/vm/debs-$suite
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

# "URI SUITE" of this machine's deb sources (deb822 and one-line style)
machine_sources() {
	local f

	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		{
			types = uris = suites = ""
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^[ \t]*#/) continue
				key = tolower($i); sub(/:.*/, "", key)
				val = $i; sub(/^[^:]*:[ \t]*/, "", val)
				if (key == "types") types = val
				else if (key == "uris") uris = val
				else if (key == "suites") suites = val
			}
			if ((" " types " ") !~ / deb /) next
			n = split(uris, u, /[ \t]+/); m = split(suites, s, /[ \t]+/)
			for (a = 1; a <= n; a++)
				for (b = 1; b <= m; b++) print u[a], s[b]
		}' "$f"
	done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -e "$f" ] || continue
		sed 's/#.*//' "$f" | awk '$1 == "deb" {
			i = 2
			if ($i ~ /^\[/) { while ($i !~ /\]$/ && i < NF) i++; i++ }
			print $i, $(i + 1)
		}'
	done
}

mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/debs"
exec 9>"$state/lock"
flock 9
codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
debian_uri=$(machine_sources | awk -v s="$codename" '$2 == s { print $1; exit }')
security_uri=$(machine_sources | awk -v s="$codename-security" '$2 == s { print $1; exit }')
if [ -z "$debian_uri" ] || [ -z "$security_uri" ]; then
	die "no apt sources for $codename and $codename-security on this machine"
fi
{
	echo "deb [signed-by=$keyring] $debian_uri $suite main"
	echo "deb [signed-by=$keyring] $security_uri $suite-security main"
} >"$state/sources.list.new"
if ! cmp -s "$state/sources.list.new" "$state/sources.list"; then
	mv "$state/sources.list.new" "$state/sources.list"
	rm -f "$state/updated"
else
	rm -f "$state/sources.list.new"
fi
: >"$state/status"
opts=(
	-o "Dir::Etc::SourceList=$state/sources.list"
	-o Dir::Etc::SourceParts=/dev/null
	-o Dir::Etc::Preferences=/dev/null
	-o Dir::Etc::PreferencesParts=/dev/null
	-o "Dir::State::Lists=$state/lists"
	-o "Dir::State::status=$state/status"
	-o "Dir::Cache=$state/cache"
	-o APT::Architecture=amd64
	-o APT::Architectures=amd64
	-o quiet=1
)
# The indexes are needed only for what is not cached yet.
need=()
for p in "$@"; do
	compgen -G "$state/debs/${p}_*.deb" >/dev/null || need+=("$p")
done
if [ "${#need[@]}" -gt 0 ]; then
	[ "${F2_OFFLINE:-0}" != 1 ] || die "F2_OFFLINE=1 but not cached: ${need[*]}"
	if [ -z "$(find "$state/updated" -mmin -1440 2>/dev/null)" ] ||
		! compgen -G "$state/lists/*Packages*" >/dev/null; then
		apt-get "${opts[@]}" update >"$state/update.log" 2>&1 ||
			{ cat "$state/update.log" >&2; die "apt-get update failed"; }
		! grep -Eq 'NO_PUBKEY|EXPKEYSIG|BADSIG|GPG error' "$state/update.log" ||
			{ cat "$state/update.log" >&2; die "signature check failed"; }
		touch "$state/updated"
	fi
	(cd "$state/debs" && apt-get "${opts[@]}" download "${need[@]}") >&2 ||
		die "apt-get download ${need[*]} failed"
fi
rm -rf "$root"
mkdir -p "$root"
for p in "$@"; do
	deb=$(compgen -G "$state/debs/${p}_*.deb" | sort -V | tail -n 1)
	dpkg-deb -x "$deb" "$root"
	echo "$p $(dpkg-deb -f "$deb" Version)"
done
