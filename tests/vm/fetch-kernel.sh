#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fetch-kernel.sh SERIES [CACHE_DIR]
#
# Fetch the newest Debian kernel of SERIES and its build headers into
# CACHE_DIR (default: $f2_cache/vm, see cache.sh), without installing anything:
#
#   5.10        bullseye, bullseye-security                   (Debian 11)
#   6.1         bookworm, bookworm-updates, bookworm-security (Debian 12)
#   6.12        trixie, trixie-security                       (Debian 13)
#   6.12-deb12  bookworm-security's linux-6.12 (built with gcc-12)
#   6.1-bpo11   bullseye-backports' 6.1.0-0.deb11.N (built with gcc-10)
#   6.1-debug   Debian's 6.1 source with KASAN, lockdep... (build-debug-kernel.sh)
# and SERIES-arm64 for arm64, SERIES-rt and SERIES-cloud (SERIES-arm64-rt,
# ...) for Debian's PREEMPT_RT and cloud flavours: 5.10-rt, 6.1-arm64-cloud.
#
# A private apt state (CACHE_DIR/apt-SERIES) gets a sources list derived from
# this machine's apt configuration and the Debian archive keyring; /etc/apt is
# only read.  The packages are unpacked into CACHE_DIR/ABI/root and the headers
# are made to work from there: make -C "$KDIR" M=... CC="$CC" modules.
#
# The last line printed is the path of CACHE_DIR/ABI/env, which defines
#   SERIES ABI KREL VERSION  series, Debian ABI, uname -r, package version
#   VMLINUZ                  the kernel to boot
#   KDIR                     the headers build directory
#   MODDIR                   lib/modules/KREL of the image (with modules.dep)
#   HDR_CC                   the compiler the headers name (gcc-10, gcc-14, ...)
#   CC                       HDR_CC if installed, else gcc.  5.10 builds fine
#                            with gcc-12; trixie's 6.12 does not (its config
#                            needs gcc-14 flags): use 6.12-deb12 to build.
#                            6.12 headers ship vmlinux: modules get BTF, so
#                            building needs pahole.
#
# The package indexes are refreshed when older than a day; F2_OFFLINE=1 never
# touches the network.  Packages already in the cache are not fetched again.
# F2_LIST=1 only lists the ABIs the suites offer (newest first); F2_ABI=ABI
# fetches that ABI, not the newest (tests/sweep.sh).
set -euo pipefail

die() { echo "fetch-kernel.sh: $*" >&2; exit 1; }

series=${1:-}
repo=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=tests/vm/cache.sh
. "$repo/tests/vm/cache.sh"
cache=${2:-$f2_cache/vm}
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

case $series in
# Not Debian's binaries: Debian's 6.1 source built with the bug detectors.
6.1-debug) exec "$repo/tests/vm/build-debug-kernel.sh" ;;
esac
# SERIES is BASE[-arm64][-rt|-cloud]: the flavour is Debian's (amd64,
# rt-amd64, cloud-amd64, arm64, rt-arm64, cloud-arm64).
base=$series kind='' arch=amd64
case $base in
*-rt)    base=${base%-rt} kind=rt ;;
*-cloud) base=${base%-cloud} kind=cloud ;;
esac
case $base in
*-arm64) base=${base%-arm64} arch=arm64 ;;
esac
flavour=${kind:+$kind-}$arch
case $base in
5.10)       suites="bullseye bullseye-security";  abi_re='5\.10\.0-[0-9]+' ;;
6.1)        suites="bookworm bookworm-updates bookworm-security"
            abi_re='6\.1\.0-[0-9]+' ;;
6.1-bpo11)  suites="bullseye-backports";         abi_re='6\.1\.0-0\.deb11\.[0-9]+' ;;
6.12)       suites="trixie trixie-security";      abi_re='6\.12\.[0-9]+\+deb13[.0-9]*' ;;
6.12-deb12) suites="bookworm bookworm-security";  abi_re='6\.12\.[0-9]+\+deb12[.0-9]*' ;;
*) die "usage: fetch-kernel.sh 5.10|6.1|6.1-bpo11|6.12|6.12-deb12[-arm64][-rt|-cloud]|6.1-debug [CACHE_DIR]" ;;
esac
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)

# shellcheck source=tests/vm/apt-mirrors.sh
. "$(dirname "$0")/apt-mirrors.sh"

state=$cache/apt-$series
mkdir -p "$state/lists/partial" "$state/cache/archives/partial"
# One run per series at a time (apt locks, half-unpacked trees).
exec 9>"$state/lock"
flock 9
private_apt "$state" "amd64,$arch" < <(
	for s in $suites; do
		case $s in
		*-security) uri=$security_uri ;;
		*)          uri=$debian_uri ;;
		esac
		echo "deb [signed-by=$keyring] $uri $s main"
	done
)

if [ "${F2_OFFLINE:-0}" = 1 ]; then
	[ -e "$state/updated" ] || die "F2_OFFLINE=1 but no package indexes in $state"
elif [ -z "$(find "$state/updated" -mmin -1440 2>/dev/null)" ]; then
	echo "fetch-kernel.sh: apt-get update ($suites)" >&2
	rc=0
	apt-get "${apt_opts[@]}" update >"$state/update.log" 2>&1 || rc=$?
	if grep -Eq 'NO_PUBKEY|EXPKEYSIG|BADSIG|GPG error|not signed|signatures? (was|were) invalid' \
		"$state/update.log"; then
		cat "$state/update.log" >&2
		die "a suite's signature could not be verified with $keyring" \
			"(verification stays enabled: update the keyring)"
	fi
	if [ "$rc" -ne 0 ] || grep -q '^[WE]: Failed to fetch' "$state/update.log"; then
		cat "$state/update.log" >&2
		die "apt-get update failed for $suites"
	fi
	touch "$state/updated"
	rm -f "$state"/gone-*
fi

# Newest first. The index may list an ABI whose packages the mirror no
# longer has (404): then the next older one is taken, and said so.
mapfile -t abis < <(apt-cache "${apt_opts[@]}" search --names-only "^linux-image-$abi_re-$flavour-unsigned\$" |
	sed -E "s/^linux-image-(.*)-$flavour-unsigned .*/\\1/" | sort -rV)
[ "${#abis[@]}" -gt 0 ] || die "no linux-image-*-$flavour-unsigned of series $series in $suites"
# make sweep: F2_LIST=1 lists the ABIs offered; F2_ABI=ABI takes that one.
if [ "${F2_LIST:-0}" = 1 ]; then
	printf '%s\n' "${abis[@]}"
	exit 0
fi
if [ -n "${F2_ABI:-}" ]; then
	# (not printf | grep -q: under pipefail, grep's early exit is
	# printf's SIGPIPE, and a failure)
	offered=0
	for a in "${abis[@]}"; do
		[ "$a" = "$F2_ABI" ] && offered=1
	done
	[ "$offered" = 1 ] || die "$F2_ABI-$flavour is not offered in $suites"
	abis=("$F2_ABI")
	rm -f "$state/gone-$F2_ABI"
fi

# Reuse the tree unless something removed part of it: "make M=<repo> clean"
# deletes every *.ko and modules.order below the repo, this cache included.
intact() {
	# shellcheck disable=SC1091,SC2153 # the env file sets KDIR, MODDIR
	[ -e "$dir/env" ] && (. "$dir/env" && [ -s "$VMLINUZ" ] &&
		[ -e "$KDIR/Makefile" ] && [ -e "$MODDIR/modules.order" ] &&
		{ [ -z "${BUSYBOX:-}" ] || [ -x "$BUSYBOX" ]; } &&
		[ -n "$(find "$MODDIR" -name '*.ko*' -print -quit)" ])
}
pkg_field() {
	apt-cache "${apt_opts[@]}" show --no-all-versions "$1" | sed -n "s/^$2: //p"
}

# fetch ABI: sets krel, dir, version; its four packages (at the image's
# version, so that they always match) in $dir/debs, or returns 1.
fetch() {
	abi=$1
	krel=$abi-$flavour
	dir=$cache/$abi
	# Another flavour or architecture: its own tree; kbuild's programs
	# (from linux-kbuild) and the compiler stay the host's, and a foreign
	# architecture's guest needs its own busybox.
	[ "$flavour" = amd64 ] || dir=$cache/$abi-$flavour
	if intact; then
		echo "$dir/env"
		exit 0
	fi
	rm -f "$dir/env"
	version=$(pkg_field "linux-image-$krel-unsigned:$arch" Version)
	local deps common kbuild p want=() dl
	deps=$(pkg_field "linux-headers-$krel:$arch=$version" Depends)
	common=$(grep -o 'linux-headers-[^ ,]*-common[^ ,]*' <<<"$deps" | head -n 1)
	kbuild=$(grep -o 'linux-kbuild-[^ ,]*' <<<"$deps" | head -n 1)
	if [ -z "$common" ] || [ -z "$kbuild" ]; then
		die "cannot parse Depends of linux-headers-$krel: $deps"
	fi
	mkdir -p "$dir/debs"
	for p in "linux-image-$krel-unsigned:$arch" "linux-headers-$krel:$arch" \
		 "$common" "$kbuild:amd64"; do
		compgen -G "$dir/debs/${p%%:*}_*.deb" >/dev/null ||
			want+=("$p=$version")
	done
	local bb=0
	if [ "$arch" != amd64 ] &&
		! compgen -G "$dir/debs/busybox-static_*.deb" >/dev/null; then
		bb=1
	fi
	[ "${#want[@]}" -gt 0 ] || [ "$bb" = 1 ] || return 0
	if [ "${F2_OFFLINE:-0}" = 1 ]; then
		echo "fetch-kernel.sh: F2_OFFLINE=1 and $krel is not cached" >&2
		rmdir "$dir/debs" "$dir" 2>/dev/null
		return 1
	fi
	dl=$(mktemp -d "$dir/dl.XXXXXX") || die "cannot make a directory in $dir"
	# apt downloads as _apt when it can write the target directory.
	if [ "$(id -u)" = 0 ] && id _apt >/dev/null 2>&1; then
		chown _apt "$dl"
	fi
	# The guest's busybox: any version that downloads (a partial mirror
	# may list a -security one it does not have).
	if [ "$bb" = 1 ]; then
		local v
		for v in $(apt-cache "${apt_opts[@]}" madison "busybox-static:$arch" |
			awk -F '|' '{ gsub(/ /, "", $2); print $2 }' | sort -ruV); do
			(cd "$dl" && apt-get "${apt_opts[@]}" download "busybox-static:$arch=$v") \
				>>"$dir/download.log" 2>&1 && break
			echo "fetch-kernel.sh: busybox-static:$arch $v cannot be had: trying the next older" >&2
		done
		compgen -G "$dl/busybox-static_*.deb" >/dev/null ||
			{ cat "$dir/download.log" >&2; rm -rf "$dir"; die "no busybox-static:$arch could be had"; }
	fi
	echo "fetch-kernel.sh: downloading ${want[*]}" >&2
	if [ "${#want[@]}" -gt 0 ] &&
		! (cd "$dl" && apt-get "${apt_opts[@]}" download "${want[@]}") \
		>"$dir/download.log" 2>&1; then
		cat "$dir/download.log" >&2
		# Only packages the mirror no longer has (404, or a version
		# the index lists no more) are a reason to take an older
		# ABI; anything else (the network) is a failure.
		if ! grep -Eq " 404 |^E: Version '[^']*' for '[^']*' was not found" "$dir/download.log"; then
			rm -rf "$dir"
			die "downloading $krel failed"
		fi
		rm -rf "$dir"
		return 1
	fi
	mv "$dl"/*.deb "$dir/debs/"
	rmdir "$dl"
}
# An ABI that could not be had is not tried again until the indexes change
# (gone-ABI, removed by apt-get update above).
for a in "${abis[@]}"; do
	if [ -e "$state/gone-$a" ]; then
		abi=
		continue
	fi
	fetch "$a" && break
	echo "fetch-kernel.sh: $a-$flavour cannot be had (not on the mirror any more, or offline and not cached): trying the next older ABI" >&2
	[ "${F2_OFFLINE:-0}" = 1 ] || touch "$state/gone-$a"
	abi=
done
[ -n "$abi" ] || die "no ABI of series $series could be had"

root=$dir/root
rm -rf "$root"
for deb in "$dir"/debs/*.deb; do
	dpkg-deb -x "$deb" "$root"
done

# The headers name /usr/src and /lib/modules by absolute path: point those
# links into the cache (relative, so it can move) and have the arch Makefile
# include the -common Makefile that sits next to it.
while IFS= read -r link; do
	target=$(readlink "$link")
	ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$root$target")" "$link"
done < <(find "$root" -type l -lname '/*')
kdir=$root/usr/src/linux-headers-$krel
# shellcheck disable=SC2016 # $(...) is make's, not the shell's
sed -i -E 's#^include /usr/src/([^/]+)/Makefile$#include $(dir $(lastword $(MAKEFILE_LIST)))../\1/Makefile#' \
	"$kdir/Makefile"
if grep -q '^include /' "$kdir/Makefile"; then
	die "unexpected absolute include in $kdir/Makefile"
fi

moddir=$root/lib/modules/$krel
[ -d "$moddir" ] || moddir=$root/usr/lib/modules/$krel
[ -d "$moddir" ] || die "no lib/modules/$krel in linux-image-$krel-unsigned"
# modules.dep is made at install time; depmod -b only knows BASE/lib/modules.
depmod -b "${moddir%/lib/modules/*}" "$krel"

hdr_cc=$(sed -n 's/^CC = .*\(gcc-[0-9][0-9]*\)$/\1/p' "$kdir/.kernelvariables")
cc=gcc
if [ -n "$hdr_cc" ] && command -v "$hdr_cc" >/dev/null; then
	cc=$hdr_cc
fi
kbuild_arch='' cross='' busybox=''
if [ "$arch" = arm64 ]; then
	kbuild_arch=arm64 cross=aarch64-linux-gnu- cc=aarch64-linux-gnu-gcc
	# (Debian 13's busybox-static installs in /usr/bin)
	busybox=$root/bin/busybox
	[ -e "$busybox" ] || busybox=$root/usr/bin/busybox
fi

{
	echo "# generated by tests/vm/fetch-kernel.sh $series"
	printf '%s=%q\n' SERIES "$series" ABI "$abi" KREL "$krel" VERSION "$version" \
		VMLINUZ "$root/boot/vmlinuz-$krel" KDIR "$kdir" MODDIR "$moddir" \
		HDR_CC "$hdr_cc" CC "$cc" ARCH "$kbuild_arch" \
		CROSS_COMPILE "$cross" BUSYBOX "$busybox" DEBARCH "$arch"
} >"$dir/env.new"
mv "$dir/env.new" "$dir/env"

# Older ABIs of the series are gone from the mirror anyway: free their space
# (not when an ABI was asked for: the sweep keeps its own cache).
[ -n "${F2_ABI:-}" ] || for env in "$cache"/*/env; do
	if [ "$env" != "$dir/env" ] && grep -qx "SERIES=$series" "$env"; then
		rm -rf "$(dirname "$env")"
	fi
done
echo "$dir/env"
