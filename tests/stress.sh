#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# stress.sh [--short] [TARGET...]: the stress lane (tests/guest/stress.sh)
# on parallel vCPUs (two, multi-threaded TCG, patched Debian 13 QEMU), one boot
# per kernel and preemption model:
#
#   5.10        Debian 11, PREEMPT_VOLUNTARY (Debian's default)
#   6.1         Debian 12, PREEMPT_DYNAMIC booted as voluntary (default)
#   6.1-full    Debian 12, booted with preempt=full
#   6.1-rt      Debian 12's PREEMPT_RT flavour
#   5.10-rt     Debian 11's PREEMPT_RT flavour
#   6.1-arm64   Debian 12 on arm64
#   5.10-arm64  Debian 11 on arm64
#   6.1-arm64-rt  its PREEMPT_RT flavour
#   5.10-cloud, 6.1-cloud, 6.1-arm64-cloud  Debian's cloud flavours
#               (PREEMPT_VOLUNTARY, no x32, fewer drivers)
#   6.1-debug   the debug kernel (tests/vm/build-debug-kernel.sh), full
#               preemption, KASAN and lockdep: when it is built
#
# make stress runs the long lane: 200 load/unload
# cycles on the generic and cloud flavours, x86_64 and arm64, 100 on the
# preemption variants (their unload waits for RCU grace periods, two to
# three times longer); 1000 tracepoint toggles; 10 s loaded throughout,
# where every ABI must be served (AArch32 too on arm64, through stress32);
# 2 rounds of unloads with each stranger parked. Under emulation on two
# cores 4 to 6 minutes a target, under an hour in all (tests/README.md):
# sized so that make stress runs from a fresh clone in one sitting.
# F2_STRESS_CYCLES=N sets the cycles of every target (the preemption
# variants' too) for a longer soak. make check runs the short lane
# (--short: 35 cycles, 100 toggles, 5 s loaded, 1 round of the parked
# 452, the parked 452 whose CPU goes off line, and the idle tracer only:
# the check lane holds every stranger on every row, without the load). Prints every guest's TAP lines,
# then an F2-ROW line per target (f2_row, tests/lib.sh); exits
# non-zero on any failure. Console logs: build/stress-vm/TARGET/console.log.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
# shellcheck source=tests/guest/steps.sh
. "$top/tests/guest/steps.sh"

toggles=1000 cycles=200 rounds=2 deadline='' loaded=10
parked='uffd hotplug ptrace getpid notif sysemu'
if [ "${1:-}" = --short ]; then
	toggles=100 cycles=35 rounds=1 deadline=600 loaded=5 parked='uffd hotplug getpid'
	shift
fi
# every module row of the matrix (tests/lib.sh), the debug kernel if built
f2_matrix_init
all=("${f2_stress_targets[@]}")
targets=("$@")
[ $# -gt 0 ] || targets=("${all[@]}")

status=0
for t in "${targets[@]}"; do
	case " ${all[*]} " in
	*" $t "*) ;;
	*) echo "stress.sh: unknown target $t (${all[*]})" >&2; exit 2 ;;
	esac
	f2_target "$t"
	series=$f2_t_series append=$f2_t_append
	n=$cycles
	# The preemption variants unload two to three times slower (RCU),
	# the debug kernel more: fewer cycles in the long lane.
	case $t in *-full | *-rt | *-debug) [ "$n" -gt 100 ] && n=100 ;; esac
	if [ -n "${F2_STRESS_CYCLES:-}" ]; then
		case $F2_STRESS_CYCLES in
		*[!0-9]* | 0*) echo "stress.sh: F2_STRESS_CYCLES=$F2_STRESS_CYCLES is not a count" >&2; exit 2 ;;
		esac
		n=$F2_STRESS_CYCLES
	fi
	# the guest's deadline: the short lane's 600 s; the long lane's grows
	# with its cycles (up to 2.4 s each measured, 6.1-rt; 8 s allowed)
	limit=${deadline:-$((900 + 8 * n))}
	out=$B/stress-vm/$t
	rm -rf "$out"
	mkdir -p "$out"
	echo "# == stress: $t"
	if ! f2_kernel "$series" || ! f2_build_module "$out/module" >"$out/build.log" 2>&1; then
		tail -n 20 "$out/build.log" 2>/dev/null
		tap_result 1 1 "stress $t: fetch or build failed"
		f2_row_failed "stress $t" "${KREL:-?}" "fetch or build failed"
		status=1
		continue
	fi
	bin=$B
	[ "$DEBARCH" = arm64 ] && bin=$B/arm64
	printf "TOGGLES=%s\nCYCLES=%s\nROUNDS=%s\nLOADED=%s\nPARKED='%s'\n" \
		"$toggles" "$n" "$rounds" "$loaded" "$parked" >"$out/stress.conf"
	extra=()
	[ "$DEBARCH" = arm64 ] && extra=("$bin/stress32")
	f2_stage "$out/f2" "$top/tests/guest/stress.sh" "$bin/stress" \
		"$bin/unload_test" "$bin/fchmodat2_test" "$out/module/fchmodat2.ko" \
		"$top/tests/guest/steps.sh" "$out/stress.conf" "${extra[@]}"
	f2_boot "$out/f2" "$out/initrd.cpio.gz" "$out/console.log" \
		-t "$limit" ${append:+-a "$append"} >"$out/verdict"
	rc=$?
	tr -d '\r' <"$out/console.log" | grep -E '^ *(not )?ok |^ *# '
	cat "$out/verdict"
	res=$(f2_result "$out/console.log" "$rc" "$out/verdict")
	IFS='|' read -r _ f _ <<<"$res"
	[ "$rc" = 0 ] && [ "$f" = 0 ] || status=1
	f2_row "stress $t" "$KREL${append:+ $append}" "$res"
done
exit "$status"
