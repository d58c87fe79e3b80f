# SPDX-License-Identifier: GPL-2.0
#
# Shared by check.sh, demo.sh and bench.sh: fetch a Debian kernel, build the
# module against its headers, pack a guest and boot it. Source it; it
# expects "set -u" and sets $top and $B.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$top/build

# f2_kernel SERIES: fetch (or reuse) the newest kernel of SERIES and source
# its env file (ABI, KREL, VMLINUZ, KDIR, MODDIR, CC).
f2_kernel() {
	local env

	env=$("$top/tests/vm/fetch-kernel.sh" "$1" | tail -n 1) || return 1
	[ -r "$env" ] || return 1
	# shellcheck disable=SC1090
	. "$env"
}

# f2_build_module DIR [KBUILD_VAR...]: build fchmodat2.ko against $KDIR from a
# copy of the sources in DIR (one copy per kernel: kbuild builds in place).
f2_build_module() {
	local dir=$1

	shift
	rm -rf "$dir"
	mkdir -p "$dir"
	cp -a "$top/Kbuild" "$top/dkms.conf" "$top/module" "$dir/"
	rm -f "$dir"/module/*.o "$dir"/module/.*.cmd
	make -s -C "$KDIR" M="$dir" CC="$CC" "$@" modules
}

# f2_build_hog DIR: the test-only ftrace user (tests/hog) for the guest.
f2_build_hog() {
	rm -rf "$1"
	mkdir -p "$1"
	cp -a "$top/tests/hog/." "$1/"
	make -s -C "$KDIR" M="$1" CC="$CC" modules
}

# f2_stage DIR GUEST_SCRIPT FILE...: a directory for mkinitramfs.sh, with
# GUEST_SCRIPT as guest.sh.
f2_stage() {
	local dir=$1 script=$2

	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$script" "$dir/guest.sh"
	cp "$@" "$dir/"
}

# f2_boot STAGE INITRD LOG [run.sh options]: pack STAGE and boot it.
f2_boot() {
	local stage=$1 initrd=$2 log=$3

	shift 3
	"$top/tests/vm/mkinitramfs.sh" "$initrd" "$stage" || return 2
	"$top/tests/vm/run.sh" -k "$VMLINUZ" -i "$initrd" -l "$log" "$@"
}

# f2_tap_count LOG: "PASS FAIL SKIP" of the TAP lines in LOG.
f2_tap_count() {
	tr -d '\r' <"$1" | awk '
		/^ok .*# SKIP/ { s++; next }
		/^ok / { p++ }
		/^not ok / { f++ }
		END { printf "%d %d %d\n", p, f, s }'
}
