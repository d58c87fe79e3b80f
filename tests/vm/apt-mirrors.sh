# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Sourced by fetch-kernel.sh and fetch-debs.sh: this machine's Debian
# mirrors, read from its apt configuration (never written into the repo).
# Sets debian_uri and security_uri, or dies. private_apt() sets up the
# private apt state both use, which leaves the machine's own untouched.

# "URI SUITE" for every deb source of this machine, deb822 and one-line style.
machine_sources() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -e "$f" ] || continue
		awk 'BEGIN { RS = ""; FS = "\n" }
		{
			types = uris = suites = ""; enabled = "yes"
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^[ \t]*#/) continue
				key = tolower($i); sub(/:.*/, "", key)
				val = $i; sub(/^[^:]*:[ \t]*/, "", val)
				if (key == "types") types = val
				else if (key == "uris") uris = val
				else if (key == "suites") suites = val
				else if (key == "enabled") enabled = tolower(val)
			}
			if (enabled == "no" || (" " types " ") !~ / deb /) next
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

# The Debian and Debian-security mirrors are the ones this machine uses for
# its own release and its -security suite.
codename=$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)
[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release"
debian_uri=$(machine_sources | awk -v s="$codename" '$2 == s { print $1; exit }')
security_uri=$(machine_sources | awk -v s="$codename-security" '$2 == s { print $1; exit }')
[ -n "$debian_uri" ] || die "no apt source for suite $codename on this machine"
[ -n "$security_uri" ] || die "no apt source for suite $codename-security on this machine"


# private_apt STATE ARCHES: the apt state in STATE (its directories exist,
# and the caller holds its lock) takes the "deb" lines on standard input
# as its sources (a changed list drops the package indexes) and an empty
# dpkg status. Sets apt_opts, the apt-get options that use it, for the
# comma-separated ARCHES, the first of them native.
private_apt() {
	local state=$1 arches=$2

	cat >"$state/sources.list.new"
	if ! cmp -s "$state/sources.list.new" "$state/sources.list"; then
		mv "$state/sources.list.new" "$state/sources.list"
		rm -f "$state/updated"
	else
		rm -f "$state/sources.list.new"
	fi
	: >"$state/status"
	# shellcheck disable=SC2034 # for the scripts that source this
	apt_opts=(
		-o "Dir::Etc::SourceList=$state/sources.list"
		-o Dir::Etc::SourceParts=/dev/null
		-o Dir::Etc::Preferences=/dev/null
		-o Dir::Etc::PreferencesParts=/dev/null
		-o "Dir::State::Lists=$state/lists"
		-o "Dir::State::status=$state/status"
		-o "Dir::Cache=$state/cache"
		-o "APT::Architecture=${arches%%,*}"
		-o "APT::Architectures=$arches"
		-o quiet=1
	)
}
