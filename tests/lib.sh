# SPDX-License-Identifier: GPL-2.0
#
# Shared by check.sh, demo.sh and bench.sh: fetch a Debian kernel, build the
# module against its headers, pack a guest and boot it. Source it; it
# expects "set -u" and sets $top and $B.

top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
B=$top/build
# depmod, dkms, modinfo, mkfs.*: in sbin, which a user's PATH lacks on Debian
case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH=$PATH:/usr/sbin:/sbin ;; esac

# The kernel matrix, the one list of the kernels the harness boots:
# SERIES|MODE|LABEL|KERNEL COMMAND LINE|LANES. SERIES is what
# tests/vm/fetch-kernel.sh fetches (tests/vm/build-debug-kernel.sh for
# 6.1-debug); MODE is what a guest does with it: "module" (built with make
# and DKMS, loaded, the suite through it), "native" (6.6+: both builds must
# refuse, the suite runs natively), "eval" (an F2_EVAL build loaded with
# takeover=1). make check boots every row (tests/check.sh); the stress lane
# runs on every module row (tests/stress.sh: target SERIES, or SERIES-full
# for preempt=full). LANES are the other boots of the row's kernel (f2_lane
# lists them): x32 (booted with syscall.x32=y, tests/guest/x32.sh),
# subsystems (tests/subsystems/run-vm.sh), userspace=SUITE
# (tests/userspace/run-vm.sh, with that Debian release's userland),
# debian-system=SUITE (the real Debian system of
# tests/debian-system/run.sh SUITE), bench (tests/bench.sh); a lane
# written full:LANE runs in make check-full only (F2_FULL=1): make check
# runs each lane on at least one kernel, make check-full on every row it
# applies to (x32 where the kernel has it: not the cloud flavours nor
# arm64; the real system is a lane of each release, not of a kernel; bench
# is a benchmark, not a test). Every guest runs on two parallel vCPUs
# (f2_boot below).
f2_matrix=(
	"5.10|module|Debian 11||x32 subsystems userspace=bullseye debian-system=bullseye bench"
	"5.10-rt|module|Debian 11 PREEMPT_RT||full:x32 full:subsystems full:userspace=bullseye"
	"6.1|module|Debian 12||x32 subsystems userspace=bookworm debian-system=bookworm bench"
	"6.1|module|Debian 12 preempt=full|preempt=full|full:x32 full:subsystems full:userspace=bookworm"
	"6.1-rt|module|Debian 12 PREEMPT_RT||full:x32 full:subsystems full:userspace=bookworm"
	"6.12|native|Debian 13||x32 subsystems"
	"6.12-deb12|eval|Debian 12 (6.12)||"
	"6.12-arm64|native|Debian 13 arm64||subsystems"
	"6.1-arm64|module|Debian 12 arm64||subsystems userspace=bookworm bench"
	"5.10-arm64|module|Debian 11 arm64||subsystems userspace=bullseye"
	"5.10-cloud|module|Debian 11 cloud||full:subsystems full:userspace=bullseye"
	"6.1-cloud|module|Debian 12 cloud||full:subsystems full:userspace=bookworm"
	"6.1-arm64-cloud|module|Debian 12 arm64 cloud||full:subsystems full:userspace=bookworm"
	"6.1-arm64-rt|module|Debian 12 arm64 PREEMPT_RT||full:subsystems full:userspace=bookworm"
)

# The sweep (tests/sweep.sh) builds and boots every ABI of these series
# too: the flavours the matrix leaves out, and bullseye-backports' 6.1.
f2_sweep_only=(5.10-arm64-cloud 5.10-arm64-rt 6.1-bpo11 6.1-bpo11-cloud
	       6.1-bpo11-rt 6.1-bpo11-arm64)

# f2_matrix_init: adds the debug kernel (Debian's 6.1 source with KASAN,
# KFENCE, lockdep, atomic-sleep checks, full preemption, and without the
# symlink block in notify_change, as 6.1 before 6.1.55) as a row with
# F2_DEBUG=1 (make check-debug and make check-full, which build it first:
# about ten minutes, once per machine), or, with F2_DEBUG unset (any
# other value too), once it is built (make stress; its only other lane
# is subsystems). F2_DEBUG=0 leaves it out: make check sets that
# (tests/check.sh), so that its time does not depend on what an earlier
# make check-debug left in the cache (its debug rows took 23 minutes in
# CI's run of fd099e7, which then ran out of time). Sets f2_debug
# (6.1-debug or empty) and f2_stress_targets.
f2_matrix_init() {
	local e series mode label append t

	f2_debug=
	if [ "${F2_DEBUG:-}" = 1 ] || { [ "${F2_DEBUG:-}" != 0 ] &&
		"$top/tests/vm/build-debug-kernel.sh" --cached >/dev/null; }; then
		f2_debug=6.1-debug
		f2_matrix+=("6.1-debug|module|6.1 debug (KASAN, lockdep)||subsystems")
	fi
	f2_stress_targets=()
	for e in "${f2_matrix[@]}"; do
		IFS='|' read -r series mode label append _ <<<"$e"
		[ "$mode" = module ] || continue
		t=$(f2_row_target "$series" "$append") || exit 2
		f2_stress_targets+=("$t")
	done
}

# f2_row_target SERIES APPEND: the name of a row in the lanes (f2_lane,
# the stress lane): SERIES, or SERIES-full for the row booted with
# preempt=full; f2_target reads it back. Another kernel command line
# has no name yet: an error (status 1), not a row that silently loses it.
f2_row_target() {
	case $2 in
	'') echo "$1" ;;
	preempt=full) echo "$1-full" ;;
	*) echo "tests/lib.sh: no target name for a row booted with '$2'" >&2
	   return 1 ;;
	esac
}

# f2_run_lanes "LANES": the lanes of a row's LANES field this run runs,
# one per line, as LANE or LANE=ARG: every lane, and those written
# "full:LANE" only in make check-full (F2_FULL=1)
f2_run_lanes() {
	local l

	for l in $1; do
		case $l in
		full:*) [ -z "${F2_FULL:-}" ] || echo "${l#full:}" ;;
		*) echo "$l" ;;
		esac
	done
}

# f2_lane LANE [MODE]: "TARGET|LABEL|ARG" for each row of the matrix that
# runs LANE (and has MODE, if given), in the matrix's order, one per line;
# TARGET is the row's name (f2_row_target: its series, SERIES-full for the
# row booted with preempt=full); ARG is what follows "LANE="
# (debian-system=SUITE), or empty. A lane written "full:LANE" runs in make
# check-full only (f2_run_lanes). F2_SERIES, if set, narrows the rows.
f2_lane() {
	local e series mode label append lanes l

	for e in "${f2_matrix[@]}"; do
		IFS='|' read -r series mode label append lanes <<<"$e"
		[ -z "${2:-}" ] || [ "$mode" = "$2" ] || continue
		case " ${F2_SERIES:-$series} " in *" $series "*) ;; *) continue ;; esac
		series=$(f2_row_target "$series" "$append") || return 2
		while read -r l; do
			case $l in
			"$1") echo "$series|$label|" ;;
			"$1"=*) echo "$series|$label|${l#*=}" ;;
			esac
		done < <(f2_run_lanes "$lanes")
	done
}

# f2_has_lane "LANES" LANE: whether a row's LANES field runs LANE (a
# "full:" lane only with F2_FULL=1)
f2_has_lane() {
	local l

	while read -r l; do
		[ "$l" = "$2" ] && return 0
	done < <(f2_run_lanes "$1")
	return 1
}

# f2_target TARGET: sets f2_t_series and f2_t_append, the series and the
# kernel command line of a lane's target (f2_lane): SERIES-full is SERIES
# booted with preempt=full.
f2_target() {
	# shellcheck disable=SC2034 # read by the lanes' scripts
	case $1 in
	*-full) f2_t_series=${1%-full} f2_t_append=preempt=full ;;
	*) f2_t_series=$1 f2_t_append= ;;
	esac
}

# f2_mode SERIES: the MODE of SERIES' rows (status 1: not in the matrix)
f2_mode() {
	local e

	for e in "${f2_matrix[@]}"; do
		[ "${e%%|*}" = "$1" ] || continue
		e=${e#*|}
		echo "${e%%|*}"
		return 0
	done
	return 1
}

# f2_series_check (after f2_matrix_init): every word of F2_SERIES names a
# series of the matrix, or one line and status 2: a misspelt series, or
# the debug kernel where it is not a row, must not narrow the run to
# nothing and pass.
f2_series_check() {
	local s known=" ${f2_matrix[*]%%|*} "

	for s in ${F2_SERIES:-}; do
		case $known in
		*" $s "*) ;;
		*)
			if [ "$s" = 6.1-debug ]; then
				echo "F2_SERIES: 6.1-debug is not a row here: make check-debug and make check-full build and run it; make stress adds it once built; make check never" >&2
			else
				echo "F2_SERIES: unknown series '$s' (known:$(printf ' %s' "${f2_matrix[@]%%|*}" | tr ' ' '\n' | sort -u | tr '\n' ' '))" >&2
			fi
			return 2 ;;
		esac
	done
}

# f2_kernel SERIES: fetch (or reuse) the newest kernel of SERIES and source
# its env file (ABI, KREL, VMLINUZ, KDIR, MODDIR, CC).
f2_kernel() {
	local env

	env=$("$top/tests/vm/fetch-kernel.sh" "$1" | tail -n 1) || return 1
	[ -r "$env" ] || return 1
	# Older env files lack the cross-building variables: none left over.
	ARCH='' CROSS_COMPILE='' BUSYBOX='' DEBARCH=amd64
	# shellcheck disable=SC1090
	. "$env"
	export BUSYBOX
}

# f2_sources DIR: a clean copy of what builds the module (what DKMS and
# the Debian package ship), one copy per kernel: kbuild builds in place.
f2_sources() {
	rm -rf "$1"
	mkdir -p "$1"
	cp -a "$top/Kbuild" "$top/Makefile" "$top/dkms.conf" "$top/module" "$1/"
	rm -f "$1"/module/*.o "$1"/module/.*.cmd
}

# f2_build_module DIR [MAKE_VAR...]: build fchmodat2.ko against $KDIR the
# way README tells users to (make KDIR=... CC=...), in a copy in DIR.
f2_build_module() {
	local dir=$1

	shift
	f2_sources "$dir"
	make -s -C "$dir" KDIR="$KDIR" CC="$CC" ${ARCH:+ARCH=$ARCH} \
		${CROSS_COMPILE:+CROSS_COMPILE=$CROSS_COMPILE} "$@" module
}

f2_version() {
	sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf"
}

# f2_build_debs DIR [VERSION]: the Debian packages, built as the README
# tells users (dpkg-buildpackage -b -us -uc) in a copy of what git tracks
# (and new files it does not ignore), without the build tree: DIR/src, the
# .debs in DIR. With VERSION, the copy is released as that version first
# (dkms.conf and a debian/changelog entry): the next version of the same
# tree, for the package upgrade of tests/debian-system. With ROOT (a root of
# tests/userspace/build-root.sh: another Debian release), the packages are
# built in it (f2_chroot), with its dpkg-dev, debhelper, dkms and
# compiler; DIR must then be below ROOT. Output: dpkg-buildpackage's.
f2_build_debs() {
	local dir=$1 next=${2:-} root=${3:-} who

	rm -rf "$dir"
	mkdir -p "$dir/src"
	(cd "$top" && git ls-files -co --exclude-standard | tar -cf - -T -) |
		tar -xf - -C "$dir/src" || return 1
	if [ -n "$next" ]; then
		sed -i "s/^PACKAGE_VERSION=\".*\"\$/PACKAGE_VERSION=\"$next\"/" \
			"$dir/src/dkms.conf" || return 1
		who=$(sed -n 's/^ -- \(.*>\)  .*/\1/p' "$dir/src/debian/changelog" | head -n 1)
		{
			printf 'fchmodat2-backport (%s) unstable; urgency=medium\n\n' "$next"
			printf '  * The same tree as %s, released again to test upgrades.\n\n' "$(f2_version)"
			printf ' -- %s  %s\n\n' "$who" "$(date -R)"
			cat "$dir/src/debian/changelog"
		} >"$dir/changelog" && mv "$dir/changelog" "$dir/src/debian/changelog" ||
			return 1
	fi
	if [ -n "$root" ]; then
		f2_chroot "$root" sh -c 'cd "$1" && dpkg-buildpackage -b -us -uc' \
			- "${dir#"$root"}/src"
	else
		(cd "$dir/src" && dpkg-buildpackage -b -us -uc)
	fi
}

# f2_release_root RELEASE: what builds as a user of that Debian release
# (bullseye, bookworm) would: nothing (status 0, no output) when this
# machine runs RELEASE (its own tools and libraries are that release's),
# else the path of a root of RELEASE (tests/userspace/build-root.sh, made
# once). The lanes never take this machine's userland for another
# release's. F2_OS_RELEASE names another os-release file (default
# /etc/os-release), to try the root path on a machine of that release.
f2_release_root() {
	local codename

	# shellcheck disable=SC1090 # the machine's, or F2_OS_RELEASE
	codename=$(. "${F2_OS_RELEASE:-/etc/os-release}" 2>/dev/null &&
		echo "${VERSION_CODENAME:-}")
	[ "$codename" = "$1" ] && return 0
	"$top/tests/userspace/build-root.sh" "$1"
}

# f2_chroot ROOT CMD...: CMD chrooted into ROOT (a root of
# tests/userspace/build-root.sh), in mount and PID namespaces of its own
# with a /proc of its own, as sbuild's and pbuilder's chroots have one; as
# a user, in a user namespace of their own. This machine's mounts do not
# change.
f2_chroot() {
	local root=$1 as=()

	shift
	[ "$(id -u)" = 0 ] || as=(-r)
	unshare "${as[@]}" -m -p -f --mount-proc="$root/proc" chroot "$root" "$@"
}

# f2_dkms_build DIR: "dkms add" and "dkms build" for $KREL against $KDIR,
# in a private DKMS tree under DIR (the machine's own DKMS state is not
# touched). Prints dkms's exit status' meaning; the module, if built, is
# DIR/fchmodat2.ko.
f2_dkms_build() {
	local dir=$1 ver src tree rc ko

	ver=$(f2_version)
	src=$dir/src tree=$dir/tree
	rm -rf "$dir"
	mkdir -p "$src" "$tree" "$dir/bin"
	f2_sources "$src/fchmodat2-$ver"
	# Debian 11's headers name gcc-10 (aarch64-linux-gnu-gcc-10 when
	# cross-building), which Debian 12 lacks; its gcc builds a module
	# that loads and works (as make KDIR= CC=gcc does).
	if [ -n "$HDR_CC" ] && ! command -v "$CROSS_COMPILE$HDR_CC" >/dev/null; then
		ln -s "$(command -v "${CROSS_COMPILE}gcc")" "$dir/bin/$CROSS_COMPILE$HDR_CC"
	fi
	dkms add --sourcetree "$src" --dkmstree "$tree" \
		-m fchmodat2 -v "$ver" >"$dir/dkms.log" 2>&1 || return 1
	# A foreign architecture: cross-build (kbuild takes ARCH and
	# CROSS_COMPILE from the environment).
	local march
	march=$(uname -m)
	[ "$DEBARCH" = arm64 ] && march=aarch64
	# (only when set: an empty ARCH in the environment is not the
	# default, and a kernel's own build tree, unlike Debian's headers,
	# does not set it)
	env PATH="$dir/bin:$PATH" ${ARCH:+ARCH="$ARCH"} \
		${CROSS_COMPILE:+CROSS_COMPILE="$CROSS_COMPILE"} \
		dkms build --sourcetree "$src" --dkmstree "$tree" \
		-m fchmodat2 -v "$ver" -k "$KREL" -a "$march" \
		--kernelsourcedir "$KDIR" >>"$dir/dkms.log" 2>&1
	rc=$?
	ko=$tree/fchmodat2/$ver/$KREL/$march/module/fchmodat2.ko
	[ "$rc" = 0 ] && [ -f "$ko" ] && cp "$ko" "$dir/fchmodat2.ko"
	return "$rc"
}

# f2_sign_module KEY CERT IN OUT: IN signed as the kernel's scripts/sign-file
# signs (CMS, SHA-256, detached, no certificates, no signed attributes,
# issuer and serial), with this machine's openssl: a PKCS#7 signature,
# struct module_signature (id_type PKEY_ID_PKCS7 = 2, the signature's
# length big-endian) and the marker appended. Debian 11's sign-file needs
# OpenSSL 1.1, which Debian 12 lacks; this serves every kernel.
f2_sign_module() {
	local sig=$4.p7s len

	openssl cms -sign -binary -noattr -nocerts -nosmimecap -md sha256 \
		-signer "$2" -inkey "$1" -in "$3" -outform DER -out "$sig" || return 1
	len=$(stat -c %s "$sig")
	{
		cat "$3" "$sig"
		printf '\0\0\2\0\0\0\0\0'
		# shellcheck disable=SC2059 # octal escapes made here
		printf "$(printf '\\%03o' $((len >> 24 & 255)) $((len >> 16 & 255)) \
			$((len >> 8 & 255)) $((len & 255)))"
		printf '~Module signature appended~\n'
	} >"$4" && rm -f "$sig"
}

# f2_build_kmods DIR: the test-only ftrace user (tests/kmods) for the guest.
f2_build_kmods() {
	rm -rf "$1"
	mkdir -p "$1"
	cp -a "$top/tests/kmods/." "$1/"
	make -s -C "$KDIR" M="$1" CC="$CC" ${ARCH:+ARCH=$ARCH} \
		${CROSS_COMPILE:+CROSS_COMPILE=$CROSS_COMPILE} modules
}

# f2_stage DIR GUEST_SCRIPT FILE...: a directory for mkinitramfs.sh, with
# GUEST_SCRIPT as guest.sh; if a FILE cannot be copied, a guest.sh that
# fails naming it (status 1).
f2_stage() {
	local dir=$1 script=$2

	shift 2
	rm -rf "$dir"
	mkdir -p "$dir"
	cp "$script" "$dir/guest.sh"
	cp "$@" "$dir/" 2>"$dir.err" && rm -f "$dir.err" && return 0
	# a file not staged: the guest fails with what was missing, instead
	# of a case that checks for its file and silently does not run (its
	# one TAP line written out: steps.sh may be the file not staged)
	cat "$dir.err" >&2
	{
		echo '#!/bin/sh'
		echo "echo 'not ok 1 harness: the host could not stage every file: $(tr -cd '[:alnum:] ./:_-' <"$dir.err")'"
		echo 'exit 1'
	} >"$dir/guest.sh"
	return 1
}

# f2_boot [-k MODULE]... STAGE INITRD LOG [run.sh options]: pack STAGE
# (and the kernel's MODULEs, with their dependencies, from $MODDIR) into
# INITRD and boot $VMLINUZ on it (tests/vm/run.sh: two parallel vCPUs,
# the patched QEMU, the console checked for kernel bugs). Every guest of
# the harness boots here, except the real Debian system of tests/debian-system/
# (a disk image with systemd, through run.sh too).
f2_boot() {
	local mods=()

	while [ "${1:-}" = -k ]; do
		[ "${#mods[@]}" -gt 0 ] || mods=(-M "$MODDIR")
		mods+=(-k "$2")
		shift 2
	done
	local stage=$1 initrd=$2 log=$3

	shift 3
	"$top/tests/vm/mkinitramfs.sh" "${mods[@]}" "$initrd" "$stage" || return 2
	"$top/tests/vm/run.sh" -r "$DEBARCH" -k "$VMLINUZ" -i "$initrd" \
		-l "$log" "$@"
}

# f2_host_oracle PROG: whether this machine can be an oracle for PROG (a
# test program built 64- or 32-bit): it must execute PROG, and its kernel
# must have fchmodat2. Found by running PROG --probe, not from version
# strings. Returns 0 if so; 1, printing why not, if this machine cannot
# run it (no i386 support) or has no fchmodat2: a reason to skip; 2,
# printing what happened, for anything else (a crash, an unexpected
# answer, a missing program): a failure.
f2_host_oracle() {
	local out rc

	out=$("$1" --probe 2>&1)
	rc=$?
	case $rc:$out in
	0:*available*)
		return 0 ;;
	126:*"Exec format error"*)
		echo "this machine cannot execute ${1##*/} (Exec format error: no i386 support in its kernel)"
		return 1 ;;
	1:*ENOSYS*)
		echo "this machine's kernel ($(uname -r)) has no fchmodat2"
		return 1 ;;
	esac
	echo "${1##*/} --probe failed here (exit $rc): $out"
	return 2
}

# f2_tap_count LOG: "PASS FAIL SKIP" of LOG's results, a guest's console
# in KTAP's nesting: its scripts' steps at the left margin, each program
# they ran (steps.sh's run_tap) a subtest below its "# Subtest:" line,
# indented by four spaces, its step's result after it. Every result
# counts, at any depth. The guest checks each program's plan on its raw
# output (run_tap: the step fails); here, a subtest that its step never
# closed (the next subtest began, or the log ended: the program was cut
# short) is one failure more. (Not a recount of its plan on the console:
# kernel messages share it and can break a line.) A C program's own KTAP
# subtest (tests/harness.h) ends with its line in the parent, less
# indented than the case before it and not a step: its cases are counted,
# so an "ok" there is not one result more (a "not ok" is: the subtest's
# plan may be what failed). With RC, the guest's exit
# status from f2_boot (tests/vm/run.sh): a guest that failed (RC != 0)
# with no failing result (it died, or its verdict found a kernel bug on
# the console) counts one failure.
f2_tap_count() {
	tr -d '\r' <"$1" | awk -v rc="${2:-0}" '
		/^    # Subtest: / { f += open; open = 1; next }
		/^(ok|not ok) / { open = 0 }
		/^ *(not )?ok / {
			match($0, /^ */)
			closes = n++ && RLENGTH < last &&
				!/^ *(not )?ok [0-9]+ harness: /
			last = RLENGTH
			if (closes && /^ *ok /)
				next
		}
		/^ *ok .*# SKIP/ { s++ }
		/^ *ok / && !/# SKIP/ { p++ }
		/^ *not ok / { f++ }
		END {
			f += open
			if (rc != 0 && f == 0)
				f = 1
			printf "%d %d %d\n", p, f, s
		}'
}

# f2_result LOG RC VERDICT [nolog]: what one boot gave, one line
# "PASS|FAIL|SKIP|LOAD|UNLOAD|CONSOLE|VERDICT": LOG's results
# (f2_tap_count: a boot that failed without a failing line is one
# failure), the guest's last "F2-RESULT load" and "unload" (- if none),
# the console and run.sh's verdict (VERDICT: the file run.sh's output went
# to). CONSOLE: VM-DIED when RC is 2; DIRTY when run.sh saw a kernel
# message, or the guest did not report its kernel log clean ("ok N
# harness: the kernel log is clean", tests/guest/steps.sh); with nolog (a
# guest that oopses on purpose and checks its log its own way) "-" unless
# DIRTY or VM-DIED. Every lane's boots go through it; the lanes print it
# as F2-ROW lines (f2_row), which make check adds up.
f2_result() {
	local p f s load unload console=clean

	read -r p f s < <(f2_tap_count "$1" "$2")
	load=$(tr -d '\r' <"$1" | sed -n 's/^F2-RESULT load //p' | tail -n 1)
	unload=$(tr -d '\r' <"$1" | sed -n 's/^F2-RESULT unload //p' | tail -n 1)
	if [ "${4:-}" = nolog ]; then
		console=-
	elif ! grep -Eq '^ *ok [0-9]+ harness: the kernel log is clean' "$1"; then
		# (on the file: under pipefail, "tr | grep -q" fails when grep
		# exits before tr has written everything)
		console=DIRTY
	fi
	grep -q 'kernel:' "$3" && console=DIRTY
	[ "$2" = 2 ] && console=VM-DIED
	echo "$p|$f|$s|${load:--}|${unload:--}|$console|$(sed -n 's/^verdict: //p' "$3" | tail -n 1)"
}

# f2_row LABEL KERNEL RESULT: a lane's line for one boot (or target),
# "F2-ROW|LABEL|KERNEL|" and RESULT (f2_result's line). tests/check.sh
# adds every F2-ROW line of a lane to its totals and its table.
f2_row() {
	echo "F2-ROW|$1|$2|$3"
}

# f2_row_failed LABEL KERNEL WHY, f2_row_skipped LABEL KERNEL WHY: the row
# of a boot (or target) that could not be made: one failure, or one skip
# whose reason is WHY
f2_row_failed() {
	f2_row "$1" "$2" "0|1|0|-|-|-|$3"
}
f2_row_skipped() {
	f2_row "$1" "$2" "0|0|1|-|-|-|SKIP: $3"
}
