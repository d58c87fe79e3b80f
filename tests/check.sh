#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: the test program natively on this machine's kernel (which
# has fchmodat2: the oracle), then the kernel matrix in QEMU, one boot per
# kernel. Every TAP line counts; prints a summary table and ends with
# "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/guest/steps.sh
. "$top/tests/guest/steps.sh"

# The kernel matrix (tests/lib.sh). The debug kernel is a row in make
# check-full and make check-debug (F2_DEBUG=1, after they build it),
# never in make check (F2_DEBUG=0, which the lanes started below
# inherit): CI's time must not depend on what is in the cache.
[ -n "${F2_FULL:-}" ] || export F2_DEBUG="${F2_DEBUG:-0}"
f2_matrix_init
matrix=("${f2_matrix[@]}")
# F2_SERIES="6.1 5.10" narrows the matrix (for development); an unknown
# name is an error, not an empty run.
f2_series_check || exit 2
if [ -n "${F2_SERIES:-}" ]; then
	for i in "${!matrix[@]}"; do
		case " $F2_SERIES " in
		*" ${matrix[$i]%%|*} "*) ;;
		*) unset 'matrix[i]' ;;
		esac
	done
fi

pass=0 fail=0 skip=0
# count-cases.sh reads only the logs this run writes
mkdir -p "$B" && touch "$B/.check-start"
rows=()
: >"$B/failed-rows"
# row: a line of the table; a failing one also into failed-rows (the
# matrix rows run in subshells), which the end of the output repeats
row() { # kernel build load pass fail skip unload console
	rows+=("$(printf '%-34s %-9s %-5s %5s %5s %5s %-6s %s' "$@")")
	case $2:$5 in
	FAIL:* | DIED:* | *:[1-9]*) echo "${rows[-1]}" >>"$B/failed-rows" ;;
	esac
}

# count LOG RC: TAP lines of LOG (a run that is not a boot: on this
# machine, or one step's lines out of a guest's log) into the totals;
# sets p f s. A run that failed (RC != 0) without any "not ok" line (a
# crash, no fchmodat2 at all) counts as one failure.
count() {
	read -r p f s < <(f2_tap_count "$1" "$2")
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
}

# boot_row LABEL BUILD LOG RC VERDICT [nolog]: one boot of a row, its
# result (f2_result, as every lane's boots) into the totals and the
# table; sets p f s.
boot_row() {
	local load unload console

	IFS='|' read -r p f s load unload console _ \
		< <(f2_result "$3" "$4" "$5" ${6:+"$6"})
	pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
	row "$1" "$2" "$load" "$p" "$f" "$s" "$unload" "$console"
}

# lane_rows NAME FILE RC: the F2-ROW lines (f2_row) a lane printed into
# FILE, one per boot or target, into the totals and the table. A lane
# that failed (RC != 0) without a failing row, or printed no row at all
# (it died), is one failure more.
lane_rows() {
	local label krel p f s load unload console lf=0 n=0

	while IFS='|' read -r _ label krel p f s load unload console _; do
		case $p$f$s in
		'' | *[!0-9]*)	# (a "|" in a label: a malformed line)
			lf=$((lf + 1))
			row "$1: a malformed F2-ROW line" FAIL - - 1 - - -
			continue ;;
		esac
		pass=$((pass + p)) lf=$((lf + f)) skip=$((skip + s)) n=$((n + 1))
		row "$label $krel" - "$load" "$p" "$f" "$s" "$unload" "$console"
	done < <(grep -a '^F2-ROW|' "$2")
	if [ "$n" = 0 ]; then
		lf=$((lf + 1))
		row "$1: no F2-ROW line (exit $3)" FAIL - - 1 - - -
	elif [ "$3" != 0 ] && [ "$lf" = 0 ]; then
		lf=$((lf + 1))
		row "$1: exit $3 without a failing row" FAIL - - 1 - - -
	fi
	fail=$((fail + lf))
}

echo "== native: $(uname -r) (the oracle)"
mkdir -p "$B/native"
for bits in 64 32; do
	prog=$B/fchmodat2_test
	[ "$bits" = 32 ] && prog=$B/fchmodat2_test32
	log=$B/native/test$bits.tap
	# An extra: the oracle that travels is Debian 13's 6.12 in QEMU.
	why=$(f2_host_oracle "$prog")
	oracle=$?
	if [ "$oracle" = 1 ]; then
		tap_skip 1 "natively, $bits-bit: $why" >"$log"
	elif [ "$oracle" != 0 ]; then
		tap_result 1 1 "natively, $bits-bit: $why" >"$log"
	fi
	if [ "$oracle" != 0 ]; then
		cat "$log"
		count "$log" 0
		row "native $(uname -r) $bits-bit" "$([ "$oracle" = 1 ] && echo skipped || echo FAIL)" - "$p" "$f" "$s" - -
		continue
	fi
	"$prog" >"$log" 2>&1
	rc=$?
	grep -E '^not ok|^# Totals|fchmodat2' "$log" | tail -n 5
	count "$log" "$rc"
	row "native $(uname -r) $bits-bit" - - "$p" "$f" "$s" - -
done

echo "== native: userspace (library, preload shim, fchmodat2ctl)"
make -s -C "$top/userspace" O="$B/userspace" check >"$B/native/userspace.tap" 2>&1
rc=$?
grep -E '^not ok|passed' "$B/native/userspace.tap"
count "$B/native/userspace.tap" "$rc"
row "native $(uname -r) userspace" - - "$p" "$f" "$s" - -

echo "== native: the test library's own test (tests/harness_test.c)"
"$B/harness_test" >"$B/native/harness.tap" 2>&1
rc=$?
grep -E '^not ok|^# Totals' "$B/native/harness.tap"
count "$B/native/harness.tap" "$rc"
row "native test library (harness.h)" - - "$p" "$f" "$s" - -

echo "== checkpatch"
"$top/tests/checkpatch.sh" >"$B/checkpatch.tap" 2>&1
rc=$?
grep -A3 -E '^not ok' "$B/checkpatch.tap"
count "$B/checkpatch.tap" "$rc"
row "checkpatch.pl, every .c .h .S" "$([ "$rc" = 0 ] && echo clean || echo DIRTY)" - "$p" "$f" "$s" - -

echo "== mainline's selftest, from Debian 13's linux-source-6.12"
"$top/tests/selftest.sh" "$B" >"$B/selftest-build.log" 2>&1
rc=$?
[ "$rc" = 0 ] || tail -n 5 "$B/selftest-build.log"
[ "$rc" = 0 ] || fail=$((fail + 1))
row "mainline selftest: build $(cat "$B/selftest.version" 2>/dev/null)" "$([ "$rc" = 0 ] && echo ok || echo FAIL)" - - "$([ "$rc" = 0 ] && echo 0 || echo 1)" - - -

# built and checked by each release's own tools: this machine's for its
# own release, a root of the release for the other (f2_release_root)
for release in bookworm bullseye; do
	echo "== Debian packages, built on $release"
	mkdir -p "$B"
	"$top/tests/package.sh" "$release" >"$B/package-$release.tap" 2>&1
	rc=$?
	grep -E '^not ok' "$B/package-$release.tap"
	count "$B/package-$release.tap" "$rc"
	row "Debian packages ($release)" "$([ "$rc" = 0 ] && echo ok || echo FAIL)" - "$p" "$f" "$s" - -
done

# dkms_placeholder OUT: for a kernel that has fchmodat2, DKMS builds the
# placeholder (module/placeholder.c: Debian 12's DKMS would fail the
# kernel's installation for a module it excludes), which says so in its
# description; the guest sees it refuse to load (native-row.sh).
dkms_placeholder() {
	f2_dkms_build "$1/dkms" &&
		modinfo -F description "$1/dkms/fchmodat2.ko" |
		grep -q '^fchmodat2 placeholder: kernel .* already has fchmodat2'
}

# install_check OUT: TAP lines for "make install" and "make uninstall" of
# the module built in OUT/module, into a scratch root (INSTALL_MOD_PATH).
install_check() {
	local root=$1/inst dir=$1/inst/lib/modules/$KREL

	rm -rf "$root"
	make -s -C "$1/module" KDIR="$KDIR" KVER="$KREL" CC="$CC" \
		${ARCH:+ARCH=$ARCH} ${CROSS_COMPILE:+CROSS_COMPILE=$CROSS_COMPILE} \
		INSTALL_MOD_PATH="$root" install >"$1/install.log" 2>&1 &&
		[ -f "$dir/updates/fchmodat2.ko" ] &&
		grep -q '^updates/fchmodat2.ko:' "$dir/modules.dep"
	tap_result 1 $? "make install: updates/fchmodat2.ko, in modules.dep"
	make -s -C "$1/module" KVER="$KREL" INSTALL_MOD_PATH="$root" \
		uninstall >>"$1/install.log" 2>&1 &&
		[ ! -e "$dir/updates/fchmodat2.ko" ] &&
		! grep -q 'fchmodat2' "$dir/modules.dep"
	tap_result 2 $? "make uninstall: gone, and from modules.dep"
	local ko=$1/module/fchmodat2.ko
	[ "$(modinfo -F license "$ko")" = GPL ] &&
		[ "$(modinfo -F version "$ko")" = "$(f2_version)" ] &&
		[ -n "$(modinfo -F description "$ko")" ]
	tap_result 3 $? "modinfo: license GPL, version $(f2_version), a description"
}

# build_for MODE OUT: build what the guest of MODE needs, the way users
# do (make KDIR=..., and DKMS), into OUT/build.log.
build_for() {
	local mode=$1 out=$2

	case $mode in
	module)
		# The guest loads the module DKMS built.
		f2_build_module "$out/module" &&
			f2_dkms_build "$out/dkms" &&
			f2_build_kmods "$out/kmods" &&
			f2_build_module "$out/module-fi" F2_FAULT_INJECT=1 &&
			cp "$out/module-fi/fchmodat2.ko" "$out/module-fi/fchmodat2-fi.ko" ;;
	eval)
		f2_build_module "$out/module" F2_EVAL=1 &&
			dkms_placeholder "$out" ;;
	native)
		# (DKMS's placeholder is shown on Debian 12's 6.12, the eval
		# row: Debian 13's headers need its gcc-14, this machine's
		# Debian 12 has none)
		! f2_build_module "$out/module" &&
			grep -q 'already has fchmodat2' "$out/build.log" &&
			! grep -q 'error:' "$out/build.log" ;;
	esac
}

# matrix_row ENTRY: one row of the matrix: builds, its boots (suite,
# x32, oops), its TAP counts into pass/fail/skip and its table rows.
matrix_row() {
	local entry=$1 series mode label append lanes out build bin files script
	local kmods rc p f s st_row x32files

	IFS='|' read -r series mode label append lanes <<<"$entry"
	echo "== VM: $label ($series), $mode"
	if ! f2_kernel "$series"; then
		echo "cannot fetch the kernel of series $series"
		fail=$((fail + 1))
		row "$label ($series)" fetch-FAIL - - 1 - - -
		return
	fi
	out=$B/vm-$KREL${append:+-${append//[^a-z0-9]/-}}
	mkdir -p "$out"
	case $mode in
	module) build=make+dkms ;;
	eval) build=F2_EVAL ;;
	native) build=refused ;;
	esac
	if ! build_for "$mode" "$out" >"$out/build.log" 2>&1; then
		tail -n 20 "$out/build.log" "$out"/dkms/dkms.log
		fail=$((fail + 1))
		row "$label $KREL" "FAIL" - - 1 - - -
		return
	fi
	grep -h -m 1 -e 'already has fchmodat2' "$out/build.log" 2>/dev/null
	[ -f "$out/dkms/fchmodat2.ko" ] && [ "$mode" != module ] &&
		echo "DKMS: $(modinfo -F description "$out/dkms/fchmodat2.ko")"

	bin=$B
	[ "$DEBARCH" = arm64 ] && bin=$B/arm64
	files=("$bin/fchmodat2_test" "$bin/fchmodat2_test32" "$bin/modload"
	       "$bin/fchmodat2_selftest" "$bin/fchmodat2_selftest32"
	       "$top/tests/guest/steps.sh" "$top/tests/guest/tracers.sh"
	       "$top/tests/guest/smoke-calls.sh" "$bin/f2call" "$bin/bpfhold")
	script=$top/tests/guest/native-row.sh
	kmods=()
	case $mode in
	module)
		script=$top/tests/guest/module-row.sh
		files+=("$bin/unload_test" "$out/dkms/fchmodat2.ko"
			"$out/kmods/f2_ftrace_user.ko" "$out/kmods/f2_killftrace.ko"
			"$out/module-fi/fchmodat2-fi.ko")
		[ -f "$out/kmods/f2_direct.ko" ] && files+=("$out/kmods/f2_direct.ko")
		files+=("$bin/subsys_audit" "$bin/subsys_audit32" "$bin/nrscan"
			"$bin/nrscan32")
		[ "$DEBARCH" = amd64 ] && files+=("$B/widenr")
		# an ext4 filesystem to freeze (unload_test frozen), on a
		# loop device in the guest
		rm -f "$out/frozen.img"
		truncate -s 8M "$out/frozen.img" &&
			mke2fs -q -t ext4 "$out/frozen.img" &&
			files+=("$out/frozen.img")
		# nfsd and the NFS client (unload_test deleg)
		kmods=(-k loop -k ext4 -k nfsd -k nfsv4) ;;
	eval)
		cp "$out/dkms/fchmodat2.ko" "$out/placeholder.ko"
		files+=("$out/module/fchmodat2.ko" "$out/placeholder.ko") ;;
	esac
	# what native-row.sh expects staged
	echo "$mode" >"$out/row-mode"
	files+=("$out/row-mode")
	if [ "$mode" = module ]; then
		install_check "$out" >"$out/install.tap"
		grep '^not ok' "$out/install.tap"
		count "$out/install.tap" 0
		row "$label $KREL: make install" "$([ "$f" = 0 ] && echo ok || echo FAIL)" - "$p" "$f" "$s" - -
	fi
	f2_stage "$out/f2" "$script" "${files[@]}"
	f2_boot "${kmods[@]}" "$out/f2" "$out/initrd.cpio.gz" "$out/console.log" -t 900 \
		${append:+-a "$append"} \
		>"$out/verdict"
	rc=$?
	cat "$out/verdict"
	tr -d '\r' <"$out/console.log" |
		grep -E '^ *not ok|^ *# Totals|WARNING:|BUG:|Oops'
	# mainline's selftest: a row of its own
	grep -a 'harness: mainline selftest' "$out/console.log" >"$out/selftest.tap"
	grep -av 'harness: mainline selftest' "$out/console.log" >"$out/main.tap"
	boot_row "$label $KREL" "$build" "$out/main.tap" "$rc" "$out/verdict"
	count "$out/selftest.tap" 0
	st_row=("$label $KREL: mainline selftest" - - "$p" "$f" "$s" - -)
	[ "$((p + f))" = 0 ] && { st_row[4]=1; fail=$((fail + 1)); }
	row "${st_row[@]}"

	# x32 executed (issue 11 #6): Debian's generic x86_64 kernels build
	# x32 in and serve it when booted with syscall.x32=y; a boot of its
	# own with the test program built with -mx32 (tests/guest/x32.sh), on
	# the rows whose lanes say x32 (tests/lib.sh; with its command line).
	if f2_has_lane "$lanes" x32; then
		echo "$mode" >"$out/x32-mode"
		x32files=("$B/fchmodat2_testx32" "$B/f2call" "$B/subsys_audit" "$out/x32-mode"
			  "$top/tests/guest/steps.sh")
		[ "$mode" = module ] && x32files+=("$out/dkms/fchmodat2.ko")
		f2_stage "$out/x32" "$top/tests/guest/x32.sh" "${x32files[@]}"
		f2_boot "$out/x32" "$out/x32.cpio.gz" "$out/x32-console.log" \
			-t 600 -a "syscall.x32=y${append:+ $append}" >"$out/x32-verdict"
		rc=$?
		cat "$out/x32-verdict"
		tr -d '\r' <"$out/x32-console.log" | grep -E '^ *not ok'
		boot_row "$label $KREL: x32 (syscall.x32=y)" - \
			"$out/x32-console.log" "$rc" "$out/x32-verdict"
	fi

	# Issue 15 #1: a task oopses inside the handler (tests/guest/oops.sh),
	# in a boot of its own (an oops turns lockdep off for good); on the
	# preempt=full row in make check-full only.
	[ "$mode" = module ] || return 0
	[ -z "$append" ] || [ -n "${F2_FULL:-}" ] || return 0
	f2_stage "$out/oops" "$top/tests/guest/oops.sh" "$bin/f2call" \
		"$top/tests/guest/steps.sh" "$out/dkms/fchmodat2.ko" \
		"$out/kmods/f2_oops.ko"
	f2_boot "$out/oops" "$out/oops.cpio.gz" "$out/oops-console.log" \
		-t 600 -O ${append:+-a "$append"} >"$out/oops-verdict"
	rc=$?
	cat "$out/oops-verdict"
	tr -d '\r' <"$out/oops-console.log" | grep -E '^ *not ok'
	boot_row "$label $KREL: oops inside" "$([ "$rc" = 0 ] && echo ok || echo FAIL)" \
		"$out/oops-console.log" "$rc" "$out/oops-verdict" nolog
}

# The rows run F2_JOBS at a time (2 by default), each in a subshell that
# writes its output to OUT/row.out and its counts and table rows to
# OUT/row.sum; printed in the matrix's order as each finishes. A row's
# guest sits idle most of its time (strangers held 8 s, hotplug pauses),
# so two rows share the two cores. Every timed check keeps its margin:
# rmmod takes about 0.1 s against its 4 s limit, a guest about 150 s
# against run.sh's 900.
jobs_=${F2_JOBS:-2}
case $jobs_ in '' | *[!0-9]* | 0) echo "F2_JOBS: a number of rows at once, not '$jobs_'" >&2; exit 2 ;; esac
mkdir -p "$B/rows"
rm -f "$B"/rows/*
idx=("${!matrix[@]}")
pids=() launched=0 printed=0
while [ "$printed" -lt "${#idx[@]}" ]; do
	while [ "$launched" -lt "${#idx[@]}" ] &&
		[ "$((launched - printed))" -lt "$jobs_" ]; do
		n=$launched
		(
			pass=0 fail=0 skip=0 rows=()
			matrix_row "${matrix[${idx[n]}]}"
			{
				echo "$pass $fail $skip"
				printf '%s\n' "${rows[@]}"
			} >"$B/rows/$n.sum"
		) >"$B/rows/$n.out" 2>&1 &
		pids[n]=$!
		launched=$((launched + 1))
	done
	wait "${pids[printed]}"
	cat "$B/rows/$printed.out"
	if [ -s "$B/rows/$printed.sum" ]; then
		{
			read -r p f s
			pass=$((pass + p)) fail=$((fail + f)) skip=$((skip + s))
			while IFS= read -r line; do
				[ -n "$line" ] && rows+=("$line")
			done
		} <"$B/rows/$printed.sum"
	else
		IFS='|' read -r d_series _ d_label _ <<<"${matrix[${idx[printed]}]}"
		echo "a row of the matrix died before its summary ($d_label, $d_series)"
		fail=$((fail + 1))
		row "$d_label ($d_series)" DIED - - 1 - - -
	fi
	printed=$((printed + 1))
done

# The stress lane: load/unload cycles and unloads with calls parked, under
# system-call load on parallel vCPUs, on every kernel and preemption model
# the module supports, in its short form (make check and make check-full);
# make stress runs the long one (the long form holds all of the short one).
st_targets=()
for t in "${f2_stress_targets[@]}"; do
	case " ${F2_SERIES:-${t%-full}} " in *" ${t%-full} "*) st_targets+=("$t") ;; esac
done
if [ "${#st_targets[@]}" -gt 0 ]; then
	echo "== stress (short): ${st_targets[*]}"
	"$top/tests/stress.sh" --short "${st_targets[@]}" >"$B/stress.tap" 2>&1
	rc=$?
	grep -E '^ *not ok|^verdict|^ *# per cycle' "$B/stress.tap"
	lane_rows stress "$B/stress.tap" "$rc"
fi

# Issue 4: filesystems (tmpfs, ext4, xfs, btrfs), seccomp, ptrace, fsnotify,
# credentials, AppArmor and Debian 13's glibc and chmod, compared per test
# with native kernels (this machine, Debian 13's 6.12); one boot per kernel.
# The native references first, then the module rows (tests/lib.sh).
subsys_series=$(echo host $({ f2_lane subsystems native; f2_lane subsystems module; } | cut -d'|' -f1))
echo "== subsystems: $subsys_series"
# shellcheck disable=SC2086 # a list of series
"$top/tests/subsystems/run-vm.sh" $subsys_series >"$B/subsystems.tap" 2>&1
rc=$?
grep -E '^ *not ok|^# DIFFERENT|^verdict:' "$B/subsystems.tap"
lane_rows subsystems "$B/subsystems.tap" "$rc"

# The userspace scenario (library, preload shim with Debian 12's glibc and
# no /proc, fchmodat2ctl) in its own boot of the rows with a userspace
# lane, x86_64 and arm64, each with its Debian release's userland.
# (the list on fd 3: what the loop runs may read its standard input)
while IFS='|' read -r series _ _ <&3; do
	echo "== VM: userspace on $series"
	log=$B/userspace-vm-$series.log
	"$top/tests/userspace/run-vm.sh" "$series" >"$log" 2>&1
	rc=$?
	grep -E '^ *not ok|^verdict' "$log"
	lane_rows "userspace $series" "$log" "$rc"
done 3< <(f2_lane userspace)

# The user's path on a real Debian system: systemd, apt install of the
# packages built by that release's tools, DKMS, fchmodat2ctl,
# fchmodat2.service and a reboot, a second kernel package and apt remove
# (tests/debian-system/); on Debian 12 also Secure Boot and the kernel upgrade to
# 6.12 and a boot on it; on Debian 11 a boot on the second kernel.
debian_system() {
	local suite=$1 name=$2 tap=$B/$3.tap rc
	echo "== real system: $name, systemd, apt, DKMS"
	"$top/tests/debian-system/run.sh" "$suite" >"$tap" 2>&1
	rc=$?
	grep -E '^ *not ok|^verdict' "$tap"
	lane_rows "real system $name" "$tap" "$rc"
}
while IFS='|' read -r _ label suite <&3; do
	debian_system "$suite" "$label" "debian-system-$suite"
done 3< <(f2_lane debian-system)

echo
printf '%-34s %-9s %-5s %5s %5s %5s %-6s %s\n' kernel build load pass fail skip unload console
printf '%s\n' "${rows[@]}"
# what those TAP lines are: distinct cases per program, setup steps apart
"$top/tests/count-cases.sh" "$B"
# What failed, last: CI keeps only the tail of this output.
if [ "$fail" != 0 ]; then
	echo "# what failed: the rows, then the first failing lines of each log this run wrote"
	sed 's/^/#   /' "$B/failed-rows"
	# Only the logs (a root filesystem image greps as text too), not
	# rows/ (a matrix row's output repeats its guest's logs), and each
	# failing line once, where it is most precise: a line is kept once
	# per directory (a guest's console and its TAP repeat each other),
	# and not where a directory below repeats it (a lane's X.tap and X/
	# gather their guests'); the same line in two guests' directories is
	# two failures, on two kernels.
	find "$B" -type f -newer "$B/.check-start" ! -path "$B/rows/*" \( \
		-name '*.log' -o -name '*.tap' -o -name '*.out' -o -name '*verdict*' \) \
		-exec grep -HaE -m 5 '^ *not ok|^verdict: (FAIL|ERROR)|^ *# .*: (exit status [1-9]|its TAP plan and)' {} + |
		sort -s -t: -k1,1 |
		awk -v B="$B/" '{
			i = index($0, ":"); f = substr($0, length(B) + 1, i - length(B) - 1)
			l = substr($0, i + 1); sub(/^ +/, "", l); sub(/\r$/, "", l)
			d = f; if (!sub(/\/[^\/]*$/, "", d)) sub(/\.[a-z]*$/, "", d)
			if (seen[d, l]++) next
			n++; line[n] = $0; dir[n] = d; text[n] = l
		}
		END {
			for (a = 1; a <= n; a++) {
				for (b = 1; b <= n; b++)
					if (text[b] == text[a] && index(dir[b], dir[a] "/") == 1)
						break
				if (b > n)
					print line[a]
			}
		}' |
		sed "s|^$B/|#   |; s/\r\$//" | head -n 40
fi
echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
