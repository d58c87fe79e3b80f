# SPDX-License-Identifier: GPL-2.0
#
# The shell side's TAP library. Sourced by the guest scenarios: TAP lines
# for the harness's own steps, and "F2-RESULT <what> ok|fail" lines for
# the host's summary table; and by the host's scripts for their TAP lines.

steps=0
failed=0
skipped=0
# STEP_PREFIX: what every step's description starts with: "harness" (the
# guests' own steps, set up included), or a host script's name for its
# checks ("userspace", "package bookworm"), set before sourcing this file
step() { # step <exit code> <description>
	steps=$((steps + 1))
	tap_result "$steps" "$1" "${STEP_PREFIX:-harness}: $2" ||
		failed=$((failed + 1))
}
# step_skipped <reason> <description>: a step that cannot apply here, and why
step_skipped() {
	steps=$((steps + 1)) skipped=$((skipped + 1))
	tap_skip "$steps" "$1" "${STEP_PREFIX:-harness}: $2"
}
# tap_result N STATUS DESCRIPTION: TAP result N, "ok" when STATUS is 0;
# returns 1 for "not ok". Every TAP result line of the shell scripts,
# guests' and host's, is written here or by tap_skip (the host's scripts
# that write their own numbers source this file for it)
tap_result() {
	if [ "$2" = 0 ]; then
		echo "ok $1 $3"
	else
		echo "not ok $1 $3"
		return 1
	fi
}
# tap_skip N REASON [DESCRIPTION]: TAP result N, skipped for REASON
tap_skip() {
	echo "ok $1${3:+ $3} # SKIP $2"
}
# tap_plan_ok FILE: FILE's TAP has a plan ("1..N") and exactly N results
tap_plan_ok() {
	awk '/^1\.\.[0-9]+/ { plans++; plan = substr($1, 4) + 0; next }
		/^(not )?ok / { n++ }
		END { exit (plans == 1 && n == plan) ? 0 : 1 }' "$1"
}
# run_tap <command...>: runs it, its output shown as a KTAP subtest (the
# "# Subtest:" line, then its lines indented by four spaces: the host
# parses them as the program's own document, f2_tap_count); rc_ is its
# exit code, or 1 if it exited 0 but its TAP plan and its results disagree
run_tap() {
	rm -f /tmp/run.$$.rc
	echo "    # Subtest: $*"
	# (line by line, whatever stdout is and whichever awk the system has:
	# mawk buffers a pipe; a console log must end where the guest stopped)
	{ "$@"; echo $? >/tmp/run.$$.rc; } 2>&1 | tee /tmp/run.$$.out |
		while IFS= read -r l_ || [ -n "$l_" ]; do
			printf '    %s\n' "$l_"
		done
	rc_=$(cat /tmp/run.$$.rc 2>/dev/null || echo 1)
	# where it stopped and why, beside make check's list of what failed
	[ "$rc_" = 0 ] || echo "    # $*: exit status $rc_ after $(grep -cE '^(not )?ok ' /tmp/run.$$.out) results"
	if [ "$rc_" = 0 ] && ! tap_plan_ok /tmp/run.$$.out; then
		echo "    # $*: its TAP plan and its results disagree"
		rc_=1
	fi
	rm -f /tmp/run.$$.rc /tmp/run.$$.out
}
run() { # run <command...>: its output, and a TAP line for its exit code
	run_tap "$@"
	step "$rc_" "$*"
}
# raw_syscalls_452: the raw_syscalls:sys_enter and sys_exit trace events
# (what perf trace and strace -e trace=... over tracefs read) see 452
# and its result as on a native kernel: two calls of ./f2call, a file
# (0) and a symlink with AT_SYMLINK_NOFOLLOW (-95, EOPNOTSUPP).
raw_syscalls_452() {
	t_=/sys/kernel/tracing
	[ -d "$t_/events" ] || mount -t tracefs nodev "$t_"
	echo 0 >"$t_/tracing_on" && : >"$t_/trace" &&
		echo 'id == 452' >"$t_/events/raw_syscalls/sys_enter/filter" &&
		echo 'id == 452' >"$t_/events/raw_syscalls/sys_exit/filter" &&
		echo 1 >"$t_/events/raw_syscalls/sys_enter/enable" &&
		echo 1 >"$t_/events/raw_syscalls/sys_exit/enable" &&
		echo 1 >"$t_/tracing_on"
	ok_=$?
	: >/tmp/tr.file && chmod 0644 /tmp/tr.file && ln -sf tr.file /tmp/tr.link
	./f2call /tmp/tr.file 600 >/dev/null
	./f2call /tmp/tr.link 600 nofollow >/dev/null
	echo 0 >"$t_/tracing_on"
	echo 0 >"$t_/events/raw_syscalls/sys_enter/enable"
	echo 0 >"$t_/events/raw_syscalls/sys_exit/enable"
	echo 0 >"$t_/events/raw_syscalls/sys_enter/filter" 2>/dev/null
	echo 0 >"$t_/events/raw_syscalls/sys_exit/filter" 2>/dev/null
	grep -E 'sys_(enter|exit): NR 452' "$t_/trace" | sed 's/^.*: sys_/sys_/' >/tmp/tr.out
	sed 's/^/# trace: /' /tmp/tr.out
	[ "$ok_" = 0 ] && [ "$(grep -c '^sys_enter: NR 452 (' /tmp/tr.out)" = 2 ] &&
		[ "$(grep -c '^sys_exit: NR 452 = ' /tmp/tr.out)" = 2 ] &&
		grep -qx 'sys_exit: NR 452 = 0' /tmp/tr.out &&
		grep -qx 'sys_exit: NR 452 = -95' /tmp/tr.out &&
		[ "$(stat -c %a /tmp/tr.file)" = 600 ]
	step $? "raw_syscalls:sys_enter and sys_exit see 452 twice, its results 0 and -95, as on a native kernel"
}
# refused_next_to WHAT [LINE [KO]]: KO (./fchmodat2.ko) refuses to load
# next to WHAT (by default an ftrace user that owns the hooked function),
# with one clear line in the kernel log, which says LINE
refused_next_to() {
	dmesg -c >/dev/null
	./modload "${3:-./fchmodat2.ko}"
	[ $? = 1 ] && [ -r /proc/modules ] && ! grep -q '^fchmodat2 ' /proc/modules
	step $? "${3:-fchmodat2.ko} refuses to load next to $1"
	dmesg | grep 'fchmodat2: ' | grep -v 'taint' >/tmp/refusal
	grep -q "${2:-already owned by another ftrace user}" /tmp/refusal &&
		[ "$(wc -l </tmp/refusal)" = 1 ]
	step $? "the refusal is one clear log line: $(cat /tmp/refusal)"
}
# x86_only PROG WHAT: 0 when WHAT (a set of x86_64 cases run by ./PROG)
# is to run here; elsewhere a SKIP line saying why, status 1. On x86_64 a
# missing PROG is a failure: the cases must not vanish silently.
x86_only() {
	if [ "$(uname -m)" != x86_64 ]; then
		step_skipped "x86_64 only ($(uname -m) here)" \
			"$2"
		return 1
	fi
	[ -x "./$1" ] && return 0
	step 1 "$2: ./$1 is missing from the guest"
	return 1
}
result() { # result <load|unload> <exit code> <description>
	step "$2" "$3"
	if [ "$2" = 0 ]; then
		echo "F2-RESULT $1 ok"
	else
		echo "F2-RESULT $1 fail"
	fi
}
# preemption_checks: the CPUs and the preemption model the guest runs
# with, as the kernel says; preempt=full on the command line must have
# taken effect.
preemption_checks() {
	cpus=$(grep -c '^processor' /proc/cpuinfo)
	[ "$cpus" -ge 2 ] && [ "$(cat /sys/devices/system/cpu/online)" = "0-$((cpus - 1))" ]
	step $? "the guest runs on $cpus online CPUs"
	model=$(dmesg | sed -n 's/.*\(Dynamic Preempt: [a-z]*\).*/\1/p' | tail -n 1)
	case "$(uname -v)" in *PREEMPT_RT*) model="PREEMPT_RT" ;; esac
	echo "# $(uname -r) $(uname -v); preemption: ${model:-as built}; command line: $(cat /proc/cmdline)"
	case " $(cat /proc/cmdline) " in
	*" preempt=full "*)
		[ "$model" = "Dynamic Preempt: full" ]
		step $? "preempt=full took effect ($model)" ;;
	esac
}
# mainline_selftest PROG: mainline's own selftest (tests/selftest.sh),
# its lines shown as comments; what it prints must be what it prints on
# Debian 13's 6.12: the regular file passes, and the symlink case says
# SKIP, which is how this test reports that the kernel refused to change
# a symlink's mode (as mainline does since 6.6); exit status 0.
mainline_selftest() {
	"./$1" >/tmp/st.out 2>&1
	rc_=$?
	sed 's/^/# selftest: /' /tmp/st.out
	grep -E '^(not )?ok ' /tmp/st.out >/tmp/st.res
	printf 'ok 1 fchmodat2(regfile)\nok 2 # SKIP fchmodat2(symlink)\n' |
		cmp -s - /tmp/st.res && [ "$rc_" = 0 ]
	step $? "mainline selftest: $1 prints what it prints on 6.12 (regfile ok, symlink refused; exit $rc_)"
}
# kmemleak_ours <REPORT: from kmemleak's report (mm/kmemleak.c's
# print_unreferenced: "unreferenced object", "comm", hex dump,
# "backtrace:" and one "[<ptr>] %pS" line per frame), the objects whose
# allocation passed through the module or a test module: a frame
# "... [fchmodat2]" or "... [f2_NAME]", or a frame no symbol names
# ("0x..."): the module's __init code, freed after its load, or a module
# unloaded since the allocation, which in these guests is only ours (the
# debug kernel has loop, ext4 and NFS built in). Prints nothing if there is none, else how
# many and the first (its size, comm and frame). Only frames count: an
# object's comm ("fchmodat2_test") or its bytes may say fchmodat2
# without the module having allocated it.
kmemleak_ours() {
	awk '/^unreferenced object/ { obj = $0; sub(/^unreferenced object [^ ]* /, "", obj); sub(/:$/, "", obj); comm = ""; counted = 0; next }
		/^ *comm "/ { comm = $2; sub(/,$/, "", comm); next }
		!counted && /^ *\[<[^>]*>\] / &&
		    ($NF ~ /^\[(fchmodat2|f2_[a-z0-9_]+)\]$/ || $2 ~ /^0x[0-9a-f]+$/) {
			counted = 1
			if (!n++)
				first = obj " comm " comm " at " $2 ($NF ~ /^\[/ ? " " $NF : " (unnamed: the module\047s freed __init code, or a module unloaded since)")
		}
		END { if (n) print n " through the module, the first " first }'
}
kernel_log_checks() {
	# (kmemleak's own start line, "Kernel memory leak detector
	# initialized", is not a leak; its reports, "N new suspected memory
	# leaks", are)
	dmesg | grep -vF 'kmemleak: Kernel memory leak detector initialized' |
		grep -E 'WARNING:|BUG:|Oops|Call Trace|refcount_t|leak|blocked for more than|detected stall|self-detected stall' && bad=1 || bad=0
	step $bad "the kernel log is clean: no warnings, bugs, oopses, refcount errors, hung tasks or RCU stalls"
	# Leaks are looked for where the kernel has kmemleak: the debug
	# kernel (release -f2debug, tests/vm/build-debug-kernel.sh), where a
	# missing or disabled kmemleak fails. Two scans (each must be
	# accepted), then no unreferenced object allocated through the
	# module (kmemleak_ours).
	[ -e /sys/kernel/debug/kmemleak ] ||
		mount -t debugfs none /sys/kernel/debug 2>/dev/null
	if [ -e /sys/kernel/debug/kmemleak ]; then
		echo scan >/sys/kernel/debug/kmemleak &&
			sleep 1 &&
			echo scan >/sys/kernel/debug/kmemleak &&
			cat /sys/kernel/debug/kmemleak >/tmp/kmemleak
		step $? "kmemleak: two scans accepted (disabled if not)"
		sed 's/^/# kmemleak: /' /tmp/kmemleak | head -n 200
		# (an awk that fails, or no report, must not read as none)
		ours=$(kmemleak_ours </tmp/kmemleak) || ours="kmemleak_ours failed"
		[ -z "$ours" ]
		step $? "kmemleak: no unreferenced object allocated through the module ($(grep -c '^unreferenced object' /tmp/kmemleak) unreferenced objects in all${ours:+; $ours})"
	else
		case $(uname -r) in
		*-f2debug)
			step 1 "kmemleak: the debug kernel has no /sys/kernel/debug/kmemleak" ;;
		esac
	fi
	# TAINT_OOT_MODULE (4096) and TAINT_UNSIGNED_MODULE (8192) only, and
	# what the guest did on purpose (f2_taint_ok: rmmod -f's 8)
	tainted=$(cat /proc/sys/kernel/tainted)
	[ $((tainted & ~(12288 | ${f2_taint_ok:-0}))) = 0 ]
	step $? "no taint beyond out-of-tree and unsigned module${f2_taint_ok:+ and $f2_taint_ok on purpose} (tainted=$tainted)"
}
finish() {
	echo "# harness steps: $steps, failed: $failed, skipped: $skipped"
	[ "$failed" = 0 ]
}
