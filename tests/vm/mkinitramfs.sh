#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# mkinitramfs.sh [-M MODDIR [-k MODULE]...] OUT.cpio.gz PATH...
#
# Pack a busybox initramfs for run.sh: tests/vm/init as /init, the host's
# static busybox with its applet links, and every PATH under /f2 (a
# directory's contents, a file under its own name).  The PATHs must provide
# /f2/guest.sh, the scenario that /init runs.
#
#   -M MODDIR  lib/modules/KREL of the guest kernel (MODDIR of fetch-kernel.sh)
#   -k MODULE  add MODULE and what it depends on, decompressed, to the guest's
#              /lib/modules/KREL with a modules.dep, for modprobe (repeatable)
set -euo pipefail

die() { echo "mkinitramfs.sh: $*" >&2; exit 1; }
usage() { die "usage: mkinitramfs.sh [-M MODDIR [-k MODULE]...] OUT.cpio.gz PATH..."; }

here=$(cd "$(dirname "$0")" && pwd)
moddir=
mods=()
while getopts M:k: opt; do
	case $opt in
	M) moddir=$OPTARG ;;
	k) mods+=("$OPTARG") ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || usage
out=$1
shift

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,f2,proc,sys,tmp}
# BUSYBOX: the guest architecture's static busybox (fetch-kernel.sh's env);
# the host's lists the applets (same Debian version).
cp "${BUSYBOX:-/bin/busybox}" "$stage/bin/busybox"
/bin/busybox --list-full | while read -r applet; do
	mkdir -p "$stage/$(dirname "$applet")"
	[ -e "$stage/$applet" ] || ln -s /bin/busybox "$stage/$applet"
done
install -m 0755 "$here/init" "$stage/init"

for path in "$@"; do
	if [ -d "$path" ]; then
		cp -a "$path/." "$stage/f2/"
	else
		cp -a "$path" "$stage/f2/"
	fi
done
[ -f "$stage/f2/guest.sh" ] || die "no guest.sh among: $*"

if [ "${#mods[@]}" -gt 0 ]; then
	[ -n "$moddir" ] || die "-k needs -M MODDIR"
	krel=$(basename "$moddir")
	dest=$stage/lib/modules/$krel
	mkdir -p "$dest"
	cp "$moddir"/modules.builtin* "$moddir/modules.order" "$dest/"
	for mod in "${mods[@]}"; do
		modprobe -d "${moddir%/lib/modules/*}" -S "$krel" --show-depends "$mod" ||
			die "module $mod not found in $moddir"
	done | awk '$1 == "insmod" { print $2 }' | sort -u | while read -r ko; do
		rel=${ko#"$moddir"/}
		mkdir -p "$(dirname "$dest/$rel")"
		case $ko in
		*.xz)  xz -dc "$ko" >"$dest/${rel%.xz}" ;;
		*.zst) zstd -qdc "$ko" >"$dest/${rel%.zst}" ;;
		*.gz)  gzip -dc "$ko" >"$dest/${rel%.gz}" ;;
		*)     cp "$ko" "$dest/$rel" ;;
		esac
	done
	depmod -b "$stage" "$krel"
fi

(cd "$stage" && find . -print0 | cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 >"$out"
