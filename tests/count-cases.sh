#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# count-cases.sh [BUILD_DIR]: what make check tested, counted honestly
# (issue 23 #2). The "N passed" of check.sh counts TAP lines: every
# harness step and every case once per kernel it ran on. This reads the
# same logs and reports, per test program (or set, or lane), its distinct
# cases (a case that ran on eleven kernels counts once; numbers in a
# case's name, such as a measured time or an address, are ignored, and so
# are mktemp's random directory names and a kernel message the console
# wrote into its line), on how many rows
# (a guest boot, or a host lane) they ran, and their results, and then
# the kernels each ran on (a guest's release; a stress target's name;
# the subsystem sets' comparisons as "A compared with B"); then the
# guest scripts' own steps apart, setup included ("insmod", "mount
# tracefs"): a step is not a test program's case.
#
# A program's results are the TAP lines printed before the step that ran
# it ("harness: ./prog ARGS", steps.sh's run; a KTAP subtest, indented,
# since run_tap nests them); lines no such step claims
# belong to their lane (a subsystem set, the package checks), under the
# section ("# ===== ext4") they appeared in. Where check.sh left
# BUILD_DIR/.check-start, only logs written since are read (a narrowed
# run leaves older logs of other kernels in build/). A report, not a
# verdict: it always exits 0.
set -uo pipefail
b=${1:-$(cd "$(dirname "$0")/.." && pwd)/build}

logs=()
for f in "$b"/native/*.tap "$b"/checkpatch.tap "$b"/package-*.tap \
	 "$b"/vm-*/install.tap "$b"/vm-*/console.log "$b"/vm-*/x32-console.log \
	 "$b"/vm-*/oops-console.log "$b"/stress-vm/*/console.log \
	 "$b"/subsystems.tap "$b"/userspace-vm-*.log "$b"/debian-system*/console-*.log; do
	[ -s "$f" ] || continue
	[ -e "$b/.check-start" ] && [ ! "$f" -nt "$b/.check-start" ] && continue
	logs+=("$f")
done
[ "${#logs[@]}" -gt 0 ] || { echo "# count-cases.sh: no logs in $b"; exit 0; }

awk -v b="$b/" -v host="$(uname -r)" '
function lane_of(f) {
	if (index(f, b) == 1)	# (b is a path, not a pattern)
		f = substr(f, length(b) + 1)
	if (f ~ /^native\//) return "native (this machine)"
	if (f ~ /^checkpatch/) return "checkpatch"
	if (f ~ /^package/) return "package"
	if (f ~ /install\.tap$/) return "make install"
	if (f ~ /x32-console/) return "x32 boot"
	if (f ~ /oops-console/) return "oops boot"
	if (f ~ /^stress-vm\//) return "stress lane"
	if (f ~ /^subsystems/) return "subsystem sets"
	if (f ~ /^userspace-vm/) return "userspace lane"
	if (f ~ /^debian-system(-bullseye)?\//) return "real system"
	return "check lane"
}
# the kernel a log ran on, from its path (the directory or name of a
# guest boot), its "# == " header (the subsystem sets) or, for the real
# systems, the release the guest says it runs
function kernel_of(f,   k, l) {
	if (index(f, b) == 1)
		f = substr(f, length(b) + 1)
	if (f ~ /^native\//) return "this machine (" host ")"
	if (f ~ /^(checkpatch|package)/) return ""
	if (f ~ /^vm-[^\/]+\//) { k = f; sub(/^vm-/, "", k); sub(/\/.*/, "", k); return k }
	if (f ~ /^stress-vm\/[^\/]+\//) { k = f; sub(/^stress-vm\//, "", k); sub(/\/.*/, "", k); return k }
	if (f ~ /^userspace-vm-/) { k = f; sub(/^userspace-vm-/, "", k); sub(/\.log$/, "", k); return k }
	if (f ~ /^debian-system/) {
		k = ""
		while ((getline l < FILENAME) > 0)
			if (l ~ /^ok [0-9]+ harness: the guest runs Debian [0-9]+/) {
				sub(/\r$/, "", l)
				sub(/.*the guest runs /, "", l)
				sub(/^Debian [0-9]+.s (signed )?/, "", l)
				sub(/ .*/, "", l)
				k = l
				break
			}
		close(FILENAME)
		return k
	}
	return ""
}
# "# == VM: 5.10 (5.10.0-46-amd64), module", "# == host: 6.18..., native",
# "# == 5.10 compared with 6.12"
function kernel_of_header(h,   k) {
	k = substr(h, 6)
	if (k ~ /^VM: /) { sub(/^VM: [^(]*\(/, "", k); sub(/\).*/, "", k); return k }
	if (k ~ /^host: /) return "this machine (" host ")"
	if (k ~ / compared with /) return k
	return ""
}
function norm(d) {
	sub(/ # (SKIP|TODO).*/, "", d)
	# a kernel message the console wrote into the line, an address
	# (KASLR moves it every boot)
	sub(/\[ *[0-9]+\.[0-9]+\] .*/, "", d)
	# a directory of mktemp(1) (a new random name each run)
	gsub(/\/tmp\/tmp\.[A-Za-z0-9]+/, "/tmp/tmp.X", d)
	gsub(/0x[0-9a-f]+/, "N", d)
	gsub(/[0-9]+([.,][0-9]+)*/, "N", d)
	return d
}
function add(p, d,   k) {
	k = p SUBSEP d
	if (!(k in seen)) { seen[k]; cases[p]++ }
	if (!((p SUBSEP row) in onrow)) { onrow[p SUBSEP row]; rows[p]++ }
	if (kern != "" && !((p SUBSEP kern) in onkern)) {
		onkern[p SUBSEP kern]
		kerns[p] = kerns[p] (kerns[p] == "" ? "" : ", ") kern
	}
	results[p]++
}
# the lines a program printed, and those of its lane under their section
function flush(p,   i) {
	for (i = 1; i <= nb; i++)
		add(p, (p == lane && bsec[i] != "" ? bsec[i] ": " : "") buf[i])
	nb = 0
}
FNR == 1 { flush(lane); lane = lane_of(FILENAME); row = FILENAME; section = ""; kern = kernel_of(FILENAME); nres = 0 }
{ sub(/\r$/, "") }
# a program run by run_tap (steps.sh) is a KTAP subtest: its lines
# indented by four spaces, below "# Subtest: COMMAND"
/^    # Subtest: / { next }
# the KTAP subtest of a C program (harness.h) closes with a result line
# less indented than the case before it, not a step: an "ok" there is
# the subtest, not a case (a "not ok" stays: its plan may have failed,
# or the program before it was cut short)
/^ *(not )?ok [0-9]+ / {
	match($0, /^ */)
	closes = nres++ && RLENGTH < lastdepth && $0 !~ /^ *(not )?ok [0-9]+ (- )?harness: /
	lastdepth = RLENGTH
	if (closes && $0 ~ /^ *ok /)
		next
}
{ sub(/^    /, "") }
/^# == / { flush(lane); row = FILENAME ":" $0; section = ""; kern = kernel_of_header($0); nres = 0; next }
/^# ===== / { section = substr($0, 9); next }
/^(not )?ok [0-9]+ / {
	d = $0
	sub(/^(not )?ok [0-9]+ (- )?/, "", d)
	if (d ~ /^harness: /) {
		d = substr(d, 10)
		if (d ~ /^(\.\/|\/)[^ ]+/) {	# the step that ran a program
			split(d, w, " ")
			p = w[1]
			sub(/.*\//, "", p)
			flush(p)
			next
		}
		flush(lane)
		add(lane " (its scripts'"'"' steps, setup included)", norm(d))
		steps++
		next
	}
	buf[++nb] = norm(d)
	bsec[nb] = section
}
END {
	flush(lane)
	printf "# %-58s %6s %5s %8s\n", "program, set or lane", "cases", "rows", "results"
	for (p in cases) {
		printf "# %-58s %6d %5d %8d\n", p, cases[p], rows[p], results[p] | "sort"
		all += results[p]
		if (p ~ /steps, setup included\)$/) nsteps += cases[p]
		else ncases += cases[p]
	}
	close("sort")
	print "# the kernels each ran on:"
	for (p in kerns)
		printf "#   %s: %s\n", p, kerns[p] | "sort"
	close("sort")
	printf "# %d distinct cases of test programs and sets, and %d distinct guest-script steps (setup included); %d TAP results in all\n", ncases, nsteps, all
}' "${logs[@]}"
exit 0
