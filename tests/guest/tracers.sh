# SPDX-License-Identifier: GPL-2.0
#
# Sourced by tests/guest/module-row.sh (the module's guests) and native-row.sh (the
# oracle, 6.12): the other users of the places the module hooks (issue 22
# #5). kprobes and kretprobes over tracefs (what perf probe and bpftrace's
# kprobe:/kretprobe: create): on the hook's function, on __seccomp_filter
# and on notify_change; BPF fentry/fexit programs (./bpfhold, what
# bpftrace's kfunc:/kretfunc: create) on the hook's function and on
# notify_change; a second ftrace direct call (f2_direct.ko). Each is first
# shown to attach and to see calls without the module (or on 6.12); with
# the module it works alongside, or it is refused with one clear error,
# in both orders of loading, while 452 is served and while rmmod runs.

t_=/sys/kernel/tracing
[ -d "$t_/events" ] || mount -t tracefs nodev "$t_"
# tr_symbol FUNC: FUNC as kallsyms names it (syscall_trace_enter.constprop.0)
tr_symbol() {
	sed -n "s/^[0-9a-f]* [tT] \\($1\\(\\.[a-z0-9.]*\\)\\{0,1\\}\\)\$/\\1/p" \
		/proc/kallsyms | head -n 1
}
tr_hook=syscall_trace_enter
[ "$(uname -m)" = aarch64 ] && tr_hook=sys_ni_syscall
tr_sym=$(tr_symbol "$tr_hook")
: >/tmp/tr.f && chmod 0644 /tmp/tr.f

# tr_probes STAGE: place the probes; on the first call (without the
# module) a probe that cannot be placed is a SKIP naming the kernel's
# answer, and is left out after; later a probe that cannot be placed is a
# failure.
tr_probes() {
	echo 0 >"$t_/tracing_on"
	echo >"$t_/kprobe_events"
	: >"$t_/trace"
	for p_ in "p:f2tr/hook $tr_sym" "r:f2tr/hook_ret $tr_sym ret=\$retval:s32" \
		"r:f2tr/seccomp __seccomp_filter ret=\$retval:s32" \
		"r:f2tr/notify notify_change ret=\$retval:s32"; do
		n_=${p_%% *}
		n_=${n_#*/}
		if [ -z "$tr_placeable" ]; then
			if echo "$p_" >>"$t_/kprobe_events" 2>/tmp/tr.err; then
				tr_ok="$tr_ok $n_"
			else
				step_skipped "this kernel refuses it without the module: $(cat /tmp/tr.err) $(dmesg | grep -i 'kprobe' | tail -n 1)" \
					"$1: kprobe \"$p_\""
			fi
		elif echo " $tr_ok " | grep -q " $n_ "; then
			echo "$p_" >>"$t_/kprobe_events"
			step $? "$1: kprobe \"$p_\" is placed"
		fi
	done
	tr_placeable=1
	echo 1 >"$t_/events/f2tr/enable" 2>/dev/null
	echo 1 >"$t_/tracing_on"
}

# tr_snapshot: the trace so far into /tmp/tr.trace. Tracing stops while it
# is read: with the module loaded every task's calls go through the hook's
# function, so the reader's own calls would add events behind it without
# end (seen: cp filling /tmp until the guest stood still).
tr_snapshot() {
	echo 0 >"$t_/tracing_on"
	cp "$t_/trace" /tmp/tr.trace
	echo 1 >"$t_/tracing_on"
}

# tr_calls STAGE SERVED: 452 through the probes, plain and under a seccomp
# filter; with SERVED=1 (module loaded, or 6.12) each is served and
# notify_change returns 0 to it; with SERVED=0 each is ENOSYS and only
# busybox chmod (fchmodat) reaches notify_change.
tr_calls() {
	: >"$t_/trace"
	chmod 0644 /tmp/tr.f
	./f2call /tmp/tr.f 600 >/tmp/tr.out1
	rc1_=$?
	m1_=$(stat -c %a /tmp/tr.f)
	./f2call -seccomp /tmp/tr.f 640 >/tmp/tr.out2
	rc2_=$?
	m2_=$(stat -c %a /tmp/tr.f)
	chmod 0604 /tmp/tr.f
	tr_snapshot
	if [ "$2" = 1 ]; then
		[ "$rc1_$m1_$rc2_$m2_" = 06000640 ]
		step $? "$1: 452 served under the probes: $(cat /tmp/tr.out1 /tmp/tr.out2 | tr '\n' ' ')"
	else
		[ "$rc1_$m1_$rc2_$m2_" = 16441644 ] && grep -q ENOSYS /tmp/tr.out1
		step $? "$1: 452 is ENOSYS under the probes: $(cat /tmp/tr.out1 /tmp/tr.out2 | tr '\n' ' ')"
	fi
	grep -E '^ *(f2call|chmod)-[0-9]+ .* (seccomp|notify): ' /tmp/tr.trace |
		sed 's/^ */# trace: /'
	if echo " $tr_ok " | grep -q " notify "; then
		if [ "$2" = 1 ]; then
			[ "$(grep -cE '^ *f2call-[0-9]+ .* notify: .* ret=0$' /tmp/tr.trace)" = 2 ]
			step $? "$1: the kretprobe on notify_change sees both 452 calls return 0"
		else
			! grep -qE '^ *f2call-[0-9]+ .* notify: ' /tmp/tr.trace &&
				grep -qE '^ *chmod-[0-9]+ .* notify: .* ret=0$' /tmp/tr.trace
			step $? "$1: the kretprobe on notify_change sees chmod's call return 0, none from 452"
		fi
	fi
	if echo " $tr_ok " | grep -q " seccomp "; then
		grep -qE '^ *f2call-[0-9]+ .* seccomp: .* ret=0$' /tmp/tr.trace &&
			! grep -E '^ *f2call-[0-9]+ .* seccomp: ' /tmp/tr.trace | grep -qv 'ret=0$'
		step $? "$1: the kretprobe on __seccomp_filter sees the filtered caller's calls allowed (0)"
	fi
	if echo " $tr_ok " | grep -q " hook "; then
		[ "$(grep -cE "^ *f2call-[0-9]+ .* hook: " /tmp/tr.trace)" -gt 0 ] &&
			[ "$(grep -cE "^ *f2call-[0-9]+ .* hook_ret: " /tmp/tr.trace)" -gt 0 ]
		step $? "$1: the kprobe and the kretprobe on $tr_sym see the caller's calls"
		grep -E "^ *f2call-[0-9]+ .* hook_ret: " /tmp/tr.trace |
			sed 's/^.* ret=//' | sort -u | tr '\n' ' ' >/tmp/tr.rets
		if [ "$(uname -m)" = aarch64 ]; then
			# sys_ni_syscall: -38 (ENOSYS) for 452 without the
			# module; with it, the module answers in its place
			if [ -n "$tr_native" ]; then
				# natively, fchmodat2's own function: its
				# successful calls
				grep -qE "^ *f2call-[0-9]+ .* hook_ret: .* ret=0\$" /tmp/tr.trace &&
					! grep -qE "^ *f2call-[0-9]+ .* hook_ret: .* ret=-38\$" /tmp/tr.trace
				step $? "$1: the kretprobe on $tr_sym sees 0 returned for 452, never ENOSYS (-38) (its returns: $(cat /tmp/tr.rets))"
			elif [ "$2" = 1 ]; then
				! grep -qE "^ *f2call-[0-9]+ .* hook_ret: .* ret=-38\$" /tmp/tr.trace
				step $? "$1: the kretprobe on $tr_sym sees no ENOSYS (-38) returned to the caller (its returns: $(cat /tmp/tr.rets))"
			else
				grep -qE "^ *f2call-[0-9]+ .* hook_ret: .* ret=-38\$" /tmp/tr.trace
				step $? "$1: the kretprobe on $tr_sym sees ENOSYS (-38) returned for 452 (its returns: $(cat /tmp/tr.rets))"
			fi
		else
			# what syscall_trace_enter returns for 452 (the number
			# the dispatcher then runs): 452 natively and where 452
			# is ENOSYS; -1 ("skip") where the module served the
			# call inside it
			r_=452 o_=-1
			[ "$2" = 1 ] && [ -z "$tr_native" ] && r_=-1 o_=452
			grep -qE "^ *f2call-[0-9]+ .* hook_ret: .* ret=$r_\$" /tmp/tr.trace &&
				! grep -qE "^ *f2call-[0-9]+ .* hook_ret: .* ret=$o_\$" /tmp/tr.trace
			step $? "$1: the kretprobe on $tr_sym sees $r_ returned for 452 (its returns: $(cat /tmp/tr.rets))"
		fi
	fi
}

tr_probes_off() {
	echo 0 >"$t_/events/f2tr/enable" 2>/dev/null
	echo >"$t_/kprobe_events"
	step $? "$1: the probes are removed"
}

# bpf_start SLOT KIND FUNC: ./bpfhold in the background; 0 once attached,
# else 1 with its answer in /tmp/bpf.SLOT
bpf_start() {
	rm -f "/tmp/bpf.$1.ready"
	./bpfhold "$2" "$3" "/tmp/bpf.$1.ready" >"/tmp/bpf.$1" 2>&1 &
	eval "bpf_pid_$1=$!"
	n_=0
	while [ ! -e "/tmp/bpf.$1.ready" ] && kill -0 "$(eval echo "\$bpf_pid_$1")" 2>/dev/null &&
		[ "$n_" -lt 100 ]; do
		sleep 0.1
		n_=$((n_ + 1))
	done
	[ -e "/tmp/bpf.$1.ready" ] && return 0
	# not attached in 10 s: it must not stay behind, attached later
	kill -TERM "$(eval echo "\$bpf_pid_$1")" 2>/dev/null
	wait "$(eval echo "\$bpf_pid_$1")"
	return 1
}

# bpf_stop SLOT: detach; bpf_runs is how many times the program ran
bpf_stop() {
	p_=$(eval echo "\$bpf_pid_$1")
	kill -TERM "$p_"
	wait "$p_"
	bpf_runs=$(sed -n 's/^run_cnt //p' "/tmp/bpf.$1")
	sed "s/^/# bpfhold: /" "/tmp/bpf.$1"
	[ -n "$bpf_runs" ]
}

# bpf_hook_without: BPF fentry and fexit on the hook's function and fentry
# on notify_change attach and run without the module (or on 6.12); tr_bpf
# lists the kinds the kernel accepts on the hook's function, the others
# are a SKIP naming the kernel's answer.
bpf_hook_without() {
	tr_bpf=
	for k_ in fentry fexit; do
		if bpf_start hook "$k_" "$tr_hook"; then
			./f2call -seccomp /tmp/tr.f 600 >/dev/null
			bpf_stop hook && [ "$bpf_runs" -gt 0 ]
			step $? "$1: a BPF $k_ program on $tr_hook attaches and runs ($bpf_runs runs)"
			tr_bpf="$tr_bpf $k_"
		else
			step_skipped "this kernel refuses it without the module: $(cat /tmp/bpf.hook)" \
				"$1: BPF $k_ on $tr_hook"
		fi
	done
	tr_bpf_notify=
	if bpf_start notify fentry notify_change; then
		chmod 0600 /tmp/tr.f && chmod 0644 /tmp/tr.f &&
			bpf_stop notify && [ "$bpf_runs" -ge 2 ]
		step $? "$1: a BPF fentry program on notify_change attaches and sees chmod twice ($bpf_runs runs)"
		tr_bpf_notify=1
	else
		step_skipped "this kernel refuses it without the module: $(cat /tmp/bpf.notify)" \
			"$1: BPF fentry on notify_change"
	fi
}

# tracers_native: the oracle (6.12, 452 native)
tracers_native() {
	tr_native=1
	# arm64: natively 452 runs its own function and never reaches
	# sys_ni_syscall (where the module answers it): the oracle's
	# probes and BPF programs are on that function
	if [ "$(uname -m)" = aarch64 ]; then
		tr_hook=__arm64_sys_fchmodat2
		tr_sym=$(tr_symbol "$tr_hook")
	fi
	tr_probes "6.12"
	tr_calls "6.12" 1
	tr_probes_off "6.12"
	bpf_hook_without "6.12"
}

# tracers_module: the module's guests, module not loaded on entry nor on
# return
tracers_module() {
	w_="without the module"
	tr_probes "$w_"
	tr_calls "$w_" 0
	bpf_hook_without "$w_"

	echo "# the tracers first, then the module"
	a_="tracers first"
	if [ -n "$tr_bpf_notify" ]; then
		bpf_start notify fentry notify_change
		step $? "$a_: a BPF fentry program on notify_change attaches $(grep attach /tmp/bpf.notify)"
	fi
	for k_ in $tr_bpf; do
		bpf_start hook "$k_" "$tr_hook"
		step $? "$a_: a BPF $k_ program on $tr_hook attaches $(grep attach /tmp/bpf.hook)"
		refused_next_to "BPF $k_ on $tr_hook ($a_)"
		./f2call -seccomp /tmp/tr.f 600 >/dev/null
		bpf_stop hook && [ "$bpf_runs" -gt 0 ]
		step $? "$a_: the BPF $k_ program ran all along ($bpf_runs runs) and detaches"
	done
	insmod ./fchmodat2.ko
	step $? "$a_: insmod fchmodat2.ko under the kprobes and BPF on notify_change"
	tr_calls "$a_" 1
	# (its runs count every notify_change on the machine; that 452's
	# calls reach it is the comm-filtered kretprobe's check above)
	if [ -n "$tr_bpf_notify" ]; then
		bpf_stop notify && [ "$bpf_runs" -gt 0 ]
		step $? "$a_: the BPF program on notify_change stayed attached and ran while the module loaded and served ($bpf_runs runs)"
	fi
	tr_probes_off "$a_"

	echo "# the module first, then the tracers"
	b_="module first"
	tr_probes "$b_"
	tr_calls "$b_" 1
	for k_ in $tr_bpf; do
		if bpf_start hook "$k_" "$tr_hook"; then
			bpf_stop hook
			step 1 "$b_: a BPF $k_ program on $tr_hook attached next to the module's direct call"
		else
			grep -q '^attach: errno 16,' /tmp/bpf.hook
			step $? "$b_: a BPF $k_ program on $tr_hook is refused: $(cat /tmp/bpf.hook)"
		fi
	done
	if [ -n "$tr_bpf_notify" ]; then
		bpf_start notify fentry notify_change
		step $? "$b_: a BPF fentry program on notify_change attaches $(grep attach /tmp/bpf.notify)"
	fi
	./f2call /tmp/tr.f 600 >/tmp/tr.out1 && [ "$(stat -c %a /tmp/tr.f)" = 600 ]
	step $? "$b_: 452 is still served: $(cat /tmp/tr.out1)"

	echo "# rmmod and insmod while the probes and the BPF program see 452 in a loop"
	: >"$t_/trace"
	./unload_test loop /tmp &
	loop_=$!
	c_=0
	for i_ in 1 2 3; do
		n_=0
		until rmmod fchmodat2 2>/dev/null || [ "$n_" -ge 100 ]; do
			n_=$((n_ + 1))
			sleep 0.05
		done
		[ "$n_" -lt 100 ] && sleep 0.2 && insmod ./fchmodat2.ko &&
			sleep 0.2 && c_=$((c_ + 1))
	done
	kill -TERM "$loop_" 2>/dev/null
	wait "$loop_"
	step $? "$b_: the calling loop was served through 3 rmmod/insmod cycles ($c_ done)"
	[ "$c_" = 3 ]
	step $? "$b_: 3 rmmod/insmod cycles under the probes"
	tr_snapshot
	grep -qE '^ *unload_test-[0-9]+ .* notify: .* ret=0$' /tmp/tr.trace &&
		! grep -E '^ *unload_test-[0-9]+ .* notify: ' /tmp/tr.trace | grep -qv 'ret=0$'
	step $? "$b_: the kretprobe on notify_change saw the loop's calls return 0 ($(grep -cE '^ *unload_test-[0-9]+ .* notify: ' /tmp/tr.trace) events)"
	if [ -n "$tr_bpf_notify" ]; then
		bpf_stop notify && [ "$bpf_runs" -gt 0 ]
		step $? "$b_: the BPF program on notify_change ran all along ($bpf_runs runs) and detaches"
	fi
	tr_probes_off "$b_"
	rmmod fchmodat2
	step $? "$b_: rmmod fchmodat2"

	echo "# a second ftrace direct call on $tr_sym (f2_direct.ko)"
	if [ ! -f f2_direct.ko ]; then
		step_skipped "this kernel has no ftrace direct calls ($(uname -m): f2_direct.ko not built)" \
			"a second ftrace direct call"
		return
	fi
	d_=$(sed -n "s/^\\([0-9a-f]*\\) [tT] $tr_sym\$/\\1/p" /proc/kallsyms)
	insmod ./f2_direct.ko addr=0x"$d_"
	step $? "insmod f2_direct.ko addr=0x$d_ ($tr_sym) without the module"
	./f2call -seccomp /tmp/tr.f 600 >/dev/null
	[ "$(cat /sys/module/f2_direct/parameters/f2_direct_hits)" -gt 0 ]
	step $? "the second direct call runs ($(cat /sys/module/f2_direct/parameters/f2_direct_hits) hits)"
	refused_next_to "another direct call"
	rmmod f2_direct && insmod ./fchmodat2.ko
	step $? "rmmod f2_direct, insmod fchmodat2.ko"
	dmesg -c >/dev/null
	! insmod ./f2_direct.ko addr=0x"$d_" 2>/dev/null &&
		! grep -q '^f2_direct ' /proc/modules &&
		dmesg | grep -q 'f2_direct: register_ftrace_direct: -16'
	step $? "a second direct call is refused next to the module: $(dmesg | grep f2_direct)"
	# (had it loaded, it must not stay for what follows)
	grep -q '^f2_direct ' /proc/modules && rmmod f2_direct
	./f2call /tmp/tr.f 640 >/tmp/tr.out1 && [ "$(stat -c %a /tmp/tr.f)" = 640 ]
	step $? "452 is still served: $(cat /tmp/tr.out1)"
	rmmod fchmodat2
	step $? "rmmod fchmodat2"
}
