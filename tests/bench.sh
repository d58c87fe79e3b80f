#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: a benchmark, not a test. Boots Debian's kernels (11's 5.10
# and 12's 6.1 on x86_64, 12's 6.1 on arm64) once each under QEMU's
# -icount shift=0,sleep=off (one guest nanosecond per instruction:
# deterministic, whatever else the host does) and prints, per kernel:
#   - guest instructions per call (getpid, fchmodat2 through the module,
#     plain fchmodat, glibc 2.36's emulation) and their ratios;
#   - on x86_64, where the cost every system call pays goes: the slow
#     path, the sys_enter tracepoint's call, the direct call's stub
#     (tests/kmods/f2_cost.c puts the machine in each state alone);
#   - real workloads without and with the module, interleaved over five
#     rounds in one boot (medians): tar -x of 3,000 files, find + stat over
#     them, Debian 13's chmod -R (fchmodat2 with the module; the /proc
#     emulation without), a fork/exec-heavy shell pipeline, a getpid loop.
# Then writes the table to build/bench-results/results.txt and a bar chart to
# build/bench-results/bench.svg (gnuplot). F2_SERIES="6.1 ..." picks kernels.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

# series | label | bench binary | getpid ratio target (what the mechanism
# allows on the architecture), for the rows of the matrix whose lanes say
# bench (tests/lib.sh)
f2_matrix_init
f2_series_check || exit 2
runs=()
while IFS='|' read -r series _ _; do
	case $series in
	*-arm64*) runs+=("$series|${series/-arm64/} arm64|$B/arm64/bench|1.02") ;;
	*) runs+=("$series|$series x86_64|$B/bench|1.30") ;;
	esac
done < <(f2_lane bench)

out=$B/bench-results
mkdir -p "$out"

# The tree the workloads work on: 60 directories of 50 files (mode 644,
# 64 bytes each), a plain tar archive with fixed owners and times.
dirs=60 per_dir=50
rm -rf "$out/tree-src"
mkdir -p "$out/tree-src/tree" || exit 1
for ((d = 0; d < dirs; d++)); do
	dd=$out/tree-src/tree/$(printf d%02d "$d")
	mkdir "$dd"
	for ((f = 0; f < per_dir; f++)); do
		printf '%063d\n' "$((d * per_dir + f))" >"$dd/$(printf f%03d "$f")"
	done
done
chmod -R u=rwX,go=rX "$out/tree-src/tree"
tar -C "$out/tree-src" --sort=name --owner=0 --group=0 --numeric-owner \
	--mtime=@0 -cf "$out/tree.tar" tree || exit 1
rm -rf "$out/tree-src"
printf 'DIRS=%d\nFILES=%d\n' "$dirs" $((dirs * per_dir)) >"$out/tree.env"

: >"$out/results.txt"
: >"$out/calls.dat.rows"
: >"$out/work.dat.cols"
status=0
for r in "${runs[@]}"; do
	IFS='|' read -r series label prog target <<<"$r"
	f2_kernel "$series" || exit 1
	kout=$B/$ABI
	[ "$DEBARCH" = amd64 ] || kout=$B/$ABI-$DEBARCH
	mkdir -p "$kout"
	f2_build_module "$kout/module" >"$kout/bench-build.log" 2>&1 ||
		{ cat "$kout/bench-build.log"; exit 1; }
	cost=()
	if [ "$DEBARCH" = amd64 ]; then
		f2_build_kmods "$kout/kmods" >>"$kout/bench-build.log" 2>&1 ||
			{ cat "$kout/bench-build.log"; exit 1; }
		cost=("$kout/kmods/f2_cost.ko")
	fi
	# Debian 13's loader, glibc and chmod for this architecture
	case $DEBARCH in
	amd64) ldso=ld-linux-x86-64.so.2 triplet=x86_64-linux-gnu ;;
	arm64) ldso=ld-linux-aarch64.so.1 triplet=aarch64-linux-gnu ;;
	esac
	F2_DEBS_ARCH=$DEBARCH "$top/tests/vm/fetch-debs.sh" trixie \
		"$kout/trixie-root" libc6 coreutils >"$kout/trixie.versions" ||
		{ echo "bench.sh: cannot fetch Debian 13's libc6 and coreutils" >&2; exit 1; }
	f2_stage "$kout/bench" "$top/tests/guest/bench.sh" "$prog" \
		"$kout/module/fchmodat2.ko" "${cost[@]}" "$out/tree.tar" \
		"$out/tree.env"
	mkdir -p "$kout/bench/trixie/lib64" "$kout/bench/trixie/lib"
	cp -L "$kout/trixie-root/usr/lib/$triplet/$ldso" "$kout/bench/trixie/lib64/" &&
		cp -L "$kout/trixie-root/usr/lib/$triplet/libc.so.6" "$kout/bench/trixie/lib/" &&
		cp -L "$kout/trixie-root/usr/bin/chmod" "$kout/bench/trixie/chmod" ||
		{ echo "bench.sh: no $ldso, libc.so.6 or chmod in Debian 13's packages" >&2; exit 1; }
	rm -rf "$kout/trixie-root"
	f2_boot "$kout/bench" "$kout/bench.cpio.gz" "$kout/bench.log" -c -s 1 \
		-t 2400 || { status=1; continue; }
	if ! grep -q '^BENCH-DONE' <(tr -d '\r' <"$kout/bench.log"); then
		echo "bench.sh: $label: the guest did not finish: $(grep -a 'BENCH-FAILED' "$kout/bench.log")" >&2
		status=1
		continue
	fi

	tr -d '\r' <"$kout/bench.log" | awk -v krel="$KREL" -v label="$label" \
		-v gtarget="$target" -v calls="$out/calls.dat.rows" \
		-v work="$out/work.dat.cols" '
	$1 == "BENCH" { ns[$2] = $3 }
	$1 == "WORK" { n = ++cnt[$2, $3]; t[$2, $3, n] = $5; seen[$2] = 1 }
	function row(what, v) { printf "  %-58s %9.1f\n", what, v }
	function ratio(what, a, b, target, cmp,   r, ok) {
		r = a / b
		ok = (cmp == "<=") ? r <= target : r >= target
		printf "  %-46s %6.3f   target %s %.2f: %s\n", what, r, cmp,
			target, ok ? "met" : "MISSED"
	}
	# median of t[w, s, 1..n] (no asort: mawk)
	function median(w, s,   n, i, j, v, a) {
		n = cnt[w, s]
		for (i = 1; i <= n; i++) {
			v = t[w, s, i]
			for (j = i - 1; j >= 1 && a[j] > v; j--)
				a[j + 1] = a[j]
			a[j + 1] = v
		}
		lo[w, s] = a[1]; hi[w, s] = a[n]
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	function part(what, d, total) {
		printf "  %-52s %+7.0f  %5.1f%%\n", what, d, 100 * d / total
	}
	END {
		printf "\n== %s (%s)\n", label, krel
		printf "Guest instructions per call (QEMU TCG, -icount shift=0):\n"
		row("syscall(SYS_getpid), module not loaded", ns["getpid_without"])
		row("syscall(SYS_getpid), module loaded", ns["getpid_with"])
		row("syscall(SYS_getpid), module unloaded again", ns["getpid_after"])
		row("fchmodat2(AT_SYMLINK_NOFOLLOW) through the module", ns["fchmodat2_with"])
		row("plain fchmodat, module loaded", ns["fchmodat_with"])
		row("fchmodat2 with an empty path (ENOENT): dispatch", ns["enoent2_with"])
		row("fchmodat with an empty path (ENOENT)", ns["enoent_with"])
		row("glibc 2.36 emulation (O_PATH+fstatat+/proc chmod+close)", ns["emulation_without"])
		row("fork + exit + wait, module not loaded (median of 5)", ns["forkexit_without"])
		row("fork + exit + wait, module loaded (median of 5)", ns["forkexit_with"])
		print "Ratios:"
		ratio("getpid, module loaded / not loaded", ns["getpid_with"], ns["getpid_without"], gtarget, "<=")
		ratio("fchmodat2 via module / plain fchmodat", ns["fchmodat2_with"], ns["fchmodat_with"], 1.05, "<=")
		ratio("emulation / fchmodat2 via module", ns["emulation_without"], ns["fchmodat2_with"], 3.3, ">=")
		if ("getpid_probe" in ns) {
			total = ns["getpid_with"] - ns["getpid_without"]
			printf "Where the %+.0f instructions every system call pays go (getpid):\n", total
			part("slow path (syscall_trace_enter, syscall_exit_work)", ns["getpid_slowpath"] - ns["getpid_without"], total)
			part("sys_enter tracepoint call (an empty probe)", ns["getpid_probe"] - ns["getpid_slowpath"], total)
			part("the direct call on syscall_trace_enter (the stub, fast path)", ns["getpid_with"] - ns["getpid_probe"], total)
		}
		printf "Workloads, guest milliseconds (median of %d rounds; min-max):\n", cnt["tar", "without"]
		printf "  (tar -x: 3,000 files; find + stat: of each; chmod -R: coreutils 9.7, glibc 2.41;\n"
		printf "  pipeline: 300 x echo | sort | wc; getpid: nanoseconds per call)\n"
		printf "  %-28s %20s %20s %9s\n", "", "without the module", "with the module", "overhead"
		nw = split("tar walk chmod_R pipeline getpid", ws, " ")
		split("tar -x|find + stat|chmod -R|pipeline|getpid", names, "|")
		fail = 0
		for (i = 1; i <= nw; i++) {
			w = ws[i]
			if (!(w in seen)) { fail = 1; continue }
			a = median(w, "without"); b = median(w, "with")
			div = (w == "getpid") ? 1 : 1e6
			ov = 100 * (b / a - 1)
			printf "  %-28s %9.2f (%.2f-%.2f) %9.2f (%.2f-%.2f) %+8.2f%%\n", names[i],
				a / div, lo[w, "without"] / div, hi[w, "without"] / div,
				b / div, lo[w, "with"] / div, hi[w, "with"] / div, ov
			printf "%s\t%s\t%.3f\n", label, names[i], ov >>work
		}
		if (fail)
			print "  MISSING: a workload gave no result"
		printf "\"%s\" %.1f %.1f %.1f %.1f %.1f\n", label, ns["getpid_without"],
			ns["getpid_with"], ns["fchmodat_with"], ns["fchmodat2_with"],
			ns["emulation_without"] >>calls
		exit fail
	}' | tee -a "$out/results.txt"
	[ "${PIPESTATUS[1]}" = 0 ] || status=1
	labels+=("$label")
done
[ "$status" = 0 ] || exit 1

# The chart: guest instructions per call, and each workload's overhead.
{
	echo 'kernel "getpid" "getpid, module" "fchmodat" "fchmodat2, module" "emulation (2.36)"'
	cat "$out/calls.dat.rows"
} >"$out/calls.dat"
# rows: workloads; columns: kernels, in the order they ran
awk -F '\t' -v OFS=' ' '
	!($1 in k) { k[$1] = ++nk; kl[nk] = $1 }
	!($2 in w) { w[$2] = ++nw; wl[nw] = $2 }
	{ v[w[$2], k[$1]] = $3 }
	END {
		printf "workload"
		for (j = 1; j <= nk; j++) printf " \"%s\"", kl[j]
		printf "\n"
		for (i = 1; i <= nw; i++) {
			printf "\"%s\"", wl[i]
			for (j = 1; j <= nk; j++) printf " %s", v[i, j]
			printf "\n"
		}
	}' "$out/work.dat.cols" >"$out/work.dat"
rm -f "$out/calls.dat.rows" "$out/work.dat.cols"
when=$(date -u +%Y-%m-%d)
# bench.gp: rerun with gnuplot to redraw; each bar carries its value
cat >"$out/bench.gp" <<EOF
set terminal svg size 1200,500 dynamic noenhanced font "sans,11" background "white"
set output "$out/bench.svg"
set multiplot layout 1,2 title "fchmodat2-backport on Debian kernels in QEMU (-icount shift=0: one guest instruction per nanosecond), $when"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set grid ytics
set key top left font ",9" autotitle columnheader
set title "Guest instructions per call (log scale)"
set logscale y
set yrange [100:200000]
x(i, n) = \$0 + (i - 2 - (n - 1) / 2.0) / (n + 1)
plot for [i=2:6] "$out/calls.dat" using i:xtic(1), \\
     for [i=2:6] "$out/calls.dat" using (x(i, 5)):i:(sprintf("%.0f", column(i))) \\
	with labels rotate left offset 0,0.5 font ",8" notitle
unset logscale y
set title "Time with the module loaded, vs without (%)"
set yrange [-70:40]
set xzeroaxis lt -1
n = ${#labels[@]}
plot for [i=2:n+1] "$out/work.dat" using i:xtic(1), \\
     for [i=2:n+1] "$out/work.dat" using (x(i, n)):i:(sprintf("%+.1f", column(i))) \\
	with labels rotate left offset 0,0.5 font ",8" notitle
unset multiplot
EOF
gnuplot "$out/bench.gp" || exit 1
sed -i '1a <!-- SPDX-License-Identifier: GPL-2.0 -->' "$out/bench.svg"
echo "bench.sh: $out/results.txt, $out/bench.svg"
