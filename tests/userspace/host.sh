#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# host.sh BUILD_DIR: make -C userspace check. On this machine's kernel
# (6.6+: native fchmodat2, the oracle): the library's unit tests (shared
# and static, with /proc and, in a private mount namespace, without), the
# preload shim, fchmodat2ctl status and check, the header on every ABI a
# compiler here targets, the man pages, pkg-config and make install.
# Every step is a TAP line; ends with "N passed, N failed".
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
O=$(cd "${1:?usage: host.sh BUILD_DIR}" && pwd)
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$top/dkms.conf")
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# the one shell TAP library (step, step_skipped): steps and skips counted
STEP_PREFIX=userspace
# shellcheck source-path=SCRIPTDIR source=../guest/steps.sh
. "$top/tests/guest/steps.sh"
# tap LOG RC DESCRIPTION: a TAP program's output; its lines count too
tap() {
	local p f

	grep -v '^# Totals' "$1"
	# the cases: a KTAP subtest's "ok" in its parent (less indented than
	# the result before it) is not one; its "not ok" is (its plan may be
	# what failed), as in f2_tap_count
	p=$(awk '/^ *ok / { match($0, /^ */)
		if (!(n++ && RLENGTH < last)) p++
		last = RLENGTH } /^ *not ok / { match($0, /^ */); n++
		last = RLENGTH } END { print p + 0 }' "$1")
	f=$(grep -c '^ *not ok ' "$1")
	cases_pass=$((cases_pass + p)) cases_fail=$((cases_fail + f))
	step "$2" "$3"
}
cases_pass=0 cases_fail=0
# without_proc CMD...: CMD in a private mount namespace without /proc
without_proc() {
	unshare -m --propagation private sh -c 'umount -l /proc && exec "$@"' sh "$@"
}
have_unshare=0
# module_absent: fchmodat2 is not loaded here, as far as can be seen (a
# kernel without module support has no /proc/modules; a build chroot may
# have /proc and no /sys)
module_absent() {
	if [ -e /proc/modules ]; then
		[ -r /proc/modules ] && ! grep -q '^fchmodat2 ' /proc/modules
	elif [ -d /sys/module ]; then
		[ ! -e /sys/module/fchmodat2 ]
	else
		[ -e /proc/self/stat ]
	fi
}
without_proc true 2>/dev/null && have_unshare=1

export LD_LIBRARY_PATH=$O
kver=$(uname -r)
# Native fchmodat2 is what 452 answers, not what the version says (a
# seccomp filter, tests/no452, stands in for an older kernel): an unknown
# flag gives EINVAL where it exists, ENOSYS where not.
native=0
python3 -c '
import ctypes, errno, os, sys
libc = ctypes.CDLL(None, use_errno=True)
mode = os.stat("/").st_mode & 0o7777
r = libc.syscall(ctypes.c_long(452), ctypes.c_long(-100), b"/",
                 ctypes.c_long(mode), ctypes.c_long(0xffffffff))
sys.exit(0 if r == -1 and ctypes.get_errno() == errno.EINVAL else 1)' &&
	native=1
# A module installed for this kernel changes what status says.
installed=0
modinfo -k "$kver" fchmodat2 >/dev/null 2>&1 && installed=1
glibc=$(getconf GNU_LIBC_VERSION | awk '{ print $2 }')
old_glibc=0 stub_glibc=0
[ "$(printf '%s\n' 2.39 "$glibc" | sort -V | head -n 1)" != 2.39 ] && old_glibc=1
# before 2.32 (Debian 11's 2.31) lchmod() is a stub (ENOSYS) and
# fchmodat(AT_SYMLINK_NOFOLLOW) has no emulation through /proc (EOPNOTSUPP)
[ "$(printf '%s\n' 2.32 "$glibc" | sort -V | head -n 1)" != 2.32 ] && stub_glibc=1
echo "# kernel $kver (native fchmodat2: $native, module installed: $installed), glibc $glibc, $O"

echo "# library unit tests"
"$O/libtest" >"$scratch/t" 2>&1
tap "$scratch/t" $? "libtest (shared library), /proc mounted"
"$O/libtest-static" >"$scratch/t" 2>&1
tap "$scratch/t" $? "libtest-static (static library), /proc mounted"
if [ "$have_unshare" = 1 ]; then
	without_proc "$O/libtest" --no-proc >"$scratch/t" 2>&1
	tap "$scratch/t" $? "libtest --no-proc, in a mount namespace without /proc"
else
	step_skipped "cannot unmount /proc in a private mount namespace here" "libtest --no-proc"
fi

echo "# the preload shim"
preload=$O/libfchmodat2-preload.so
"$O/lchmod_prog" "$scratch" >"$scratch/p" 2>&1
rc=$?
rc_noshim=$rc
cp "$scratch/p" "$scratch/p-noshim"
sed 's/^/# /' "$scratch/p"
if [ "$stub_glibc" = 1 ]; then
	# every call differs from glibc 2.39 on Linux 6.6, /proc or not
	[ "$rc" = 4 ] && grep -q '^lchmod(file, 0600): ENOSYS, file 0644' "$scratch/p" &&
		grep -q '^fchmodat(file, 0604, AT_SYMLINK_NOFOLLOW): EOPNOTSUPP, file 0644' "$scratch/p" &&
		grep -q 'AT_EMPTY_PATH): EINVAL' "$scratch/p"
	step $? "without the shim, glibc $glibc: lchmod is a stub (ENOSYS), fchmodat(AT_SYMLINK_NOFOLLOW) EOPNOTSUPP, AT_EMPTY_PATH EINVAL"
elif [ "$old_glibc" = 1 ]; then
	# glibc < 2.39: only AT_EMPTY_PATH differs (EINVAL)
	[ "$rc" = 1 ] && grep -q 'AT_EMPTY_PATH): EINVAL' "$scratch/p"
	step $? "without the shim, glibc $glibc: lchmod works through /proc, AT_EMPTY_PATH is EINVAL"
elif [ "$native" = 1 ]; then
	# glibc 2.39+ calls 452 itself: what the shim gives older ones
	[ "$rc" = 0 ]
	step $? "without the shim, glibc $glibc on a kernel with fchmodat2: every call as on Linux 6.6"
else
	step_skipped "glibc $glibc without 452 uses its own /proc fallback (compared with the shim below)" \
		"without the shim: the libc's own answers"
fi
LD_PRELOAD=$preload "$O/lchmod_prog" "$scratch" >"$scratch/p" 2>&1
rc=$?
sed 's/^/# /' "$scratch/p"
if [ "$native" = 1 ]; then
	[ "$rc" = 0 ]
	step $? "with LD_PRELOAD=libfchmodat2-preload.so: as glibc 2.39 on Linux 6.6"
else
	# 452 is ENOSYS: the shim leaves every call to the libc's own code
	[ "$rc" = "$rc_noshim" ] && cmp -s "$scratch/p" "$scratch/p-noshim"
	step $? "with LD_PRELOAD=libfchmodat2-preload.so and 452 ENOSYS: exactly as without the shim"
fi
if [ "$have_unshare" = 1 ] && [ "$native" = 0 ]; then
	without_proc "$O/lchmod_prog" "$scratch" >"$scratch/p-noshim" 2>&1
	rc_noshim=$?
	LD_PRELOAD=$preload without_proc "$O/lchmod_prog" "$scratch" >"$scratch/p" 2>&1
	rc=$?
	sed 's/^/# /' "$scratch/p"
	[ "$rc" = "$rc_noshim" ] && cmp -s "$scratch/p" "$scratch/p-noshim"
	step $? "without /proc, with the shim and 452 ENOSYS: exactly as without the shim"
elif [ "$native" = 0 ]; then
	step_skipped "cannot unmount /proc in a private mount namespace here" \
		"without /proc, with the shim and 452 ENOSYS: exactly as without the shim"
fi
if [ "$have_unshare" = 1 ] && [ "$native" = 1 ]; then
	without_proc "$O/lchmod_prog" "$scratch" >"$scratch/p" 2>&1
	rc=$?
	sed 's/^/# /' "$scratch/p"
	if [ "$stub_glibc" = 1 ]; then
		[ "$rc" = 4 ] && grep -q '^lchmod(file, 0600): ENOSYS, file 0644' "$scratch/p"
		step $? "without /proc and without the shim, glibc $glibc's lchmod fails (ENOSYS: a stub)"
	elif [ "$old_glibc" = 1 ]; then
		[ "$rc" != 0 ] && grep -q '^lchmod(file, 0600): EOPNOTSUPP, file 0644' "$scratch/p"
		step $? "without /proc and without the shim, glibc $glibc's lchmod fails (EOPNOTSUPP)"
	else
		step_skipped "glibc $glibc's lchmod calls 452 itself: without the shim there is no failure to show" \
			"without /proc and without the shim, glibc's lchmod fails"
	fi
	LD_PRELOAD=$preload without_proc "$O/lchmod_prog" "$scratch" >"$scratch/p" 2>&1
	step $? "without /proc, with the shim: lchmod and fchmodat work (system call 452)"
	sed 's/^/# /' "$scratch/p"
elif [ "$native" = 1 ]; then
	[ "$stub_glibc" = 1 ] || [ "$old_glibc" = 1 ] &&
		step_skipped "cannot unmount /proc in a private mount namespace here" \
			"without /proc and without the shim, glibc $glibc's lchmod fails"
	step_skipped "cannot unmount /proc in a private mount namespace here" \
		"without /proc, with the shim: lchmod and fchmodat work (system call 452)"
fi

echo "# fchmodat2ctl"
ctl=$O/fchmodat2ctl
"$ctl" status >"$scratch/s" 2>&1
rc=$?
sed 's/^/# /' "$scratch/s"
if [ "$native" = 1 ]; then
	[ "$rc" = 0 ] && grep -q ': native' "$scratch/s"
	step $? "fchmodat2ctl status: native, exit 0 (got $rc)"
else
	want=$((installed ? 4 : 5))
	[ "$rc" = "$want" ] && grep -q 'not available (ENOSYS)' "$scratch/s"
	step $? "fchmodat2ctl status: not available, exit $want with the module $([ "$installed" = 1 ] || echo 'not ')installed (got $rc)"
fi
"$ctl" status --json >"$scratch/j" 2>&1
rc=$?
sed 's/^/# /' "$scratch/j"
python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(0 if d["exit"] == int(sys.argv[2]) and d["syscall"] == 452 else 1)' "$scratch/j" "$rc"
step $? "fchmodat2ctl status --json: valid JSON, its exit field is the exit code"
"$ctl" check >"$scratch/c" 2>&1
rc=$?
sed 's/^/# /' "$scratch/c"
if [ "$native" = 1 ]; then
	[ "$rc" = 0 ] && [ "$(grep -c '^ok ' "$scratch/c")" = 4 ]
	step $? "fchmodat2ctl check: 4 checks pass, exit 0 (got $rc)"
else
	[ "$rc" = 4 ] && if [ "$installed" = 1 ]; then
		grep -q '"fchmodat2ctl load" loads the module' "$scratch/c"
	else
		grep -q 'no module can be loaded' "$scratch/c"
	fi
	step $? "fchmodat2ctl check: absent (ENOSYS), exit 4, says what to do next (got $rc)"
fi
"$ctl" --json check >"$scratch/cj" 2>&1
rc=$?
sed 's/^/# /' "$scratch/cj"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); rc = int(sys.argv[2])
ok = d["exit"] == rc and d["syscall"] == 452
if sys.argv[3] == "1":
    ok = ok and rc == 0 and d["result"] == "behaves" and d["probe"] == "EINVAL" and \
        len(d["checks"]) == 4 and all(c["ok"] for c in d["checks"])
else:
    ok = ok and rc == 4 and d["result"] == "absent" and d["probe"] == "ENOSYS" and d["reason"]
sys.exit(0 if ok else 1)' "$scratch/cj" "$rc" "$native"
step $? "fchmodat2ctl --json check: valid JSON, $([ "$native" = 1 ] && echo 'behaves, 4 checks ok' || echo 'absent, a reason'), its exit field is the exit code (got $rc)"
# A seccomp profile that answers EPERM for 452 hides whether it is there.
[ -x "$O/no452" ] || gcc -O2 -static -o "$O/no452" "$top/tests/no452.c"
"$O/no452" -e 1 "$ctl" check >"$scratch/c" 2>&1
rc=$?
sed 's/^/# /' "$scratch/c"
[ "$rc" = 6 ] && grep -q 'cannot tell' "$scratch/c"
step $? "fchmodat2ctl check with 452 answering EPERM: cannot tell, exit 6 (got $rc)"
"$O/no452" -e 1 "$ctl" --json check >"$scratch/cj" 2>&1
rc=$?
sed 's/^/# /' "$scratch/cj"
python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if d["exit"] == 6 == int(sys.argv[2]) and d["result"] == "unknown" and d["probe"] == "EPERM" else 1)' "$scratch/cj" "$rc"
step $? "fchmodat2ctl --json check with 452 answering EPERM: unknown, exit 6 (got $rc)"
if [ "$native" = 0 ] && [ "$installed" = 0 ]; then
	# nothing to load: safe to ask on this machine
	"$ctl" load >"$scratch/l" 2>&1
	rc=$?
	sed 's/^/# /' "$scratch/l"
	[ "$rc" = 1 ] && module_absent
	step $? "fchmodat2ctl load with no module installed: exit 1, nothing loaded (got $rc)"
elif [ "$native" = 0 ]; then
	step_skipped "a module is installed here: loading it would touch this machine's kernel (the VMs test it)" \
		"fchmodat2ctl load"
fi
if [ "$native" = 1 ]; then
	"$ctl" load >"$scratch/l" 2>&1
	rc=$?
	sed 's/^/# /' "$scratch/l"
	[ "$rc" = 0 ] && grep -q '^fchmodat2ctl: this kernel has fchmodat2 natively: the module is not needed' "$scratch/l" &&
		module_absent
	step $? "fchmodat2ctl load on a native kernel: not needed, nothing loaded, exit 0 (got $rc)"
fi
[ "$("$ctl" --version)" = "fchmodat2ctl $version" ]
step $? "fchmodat2ctl --version: fchmodat2ctl $version"
# (into a file: grep -q's early exit would make the writer's EPIPE the
# pipeline's status under pipefail)
"$ctl" --help >"$scratch/h" && grep -q '^Usage: fchmodat2ctl' "$scratch/h"
step $? "fchmodat2ctl --help"
"$ctl" frobnicate >"$scratch/u" 2>&1
[ $? = 2 ] && [ "$(wc -l <"$scratch/u")" = 2 ] &&
	grep -qx 'fchmodat2ctl: unknown verb "frobnicate"' "$scratch/u" &&
	grep -qx "Try 'fchmodat2ctl --help' for more information." "$scratch/u"
step $? "fchmodat2ctl with an unknown verb exits 2: one line, then where to read more"
"$ctl" --frobnicate >"$scratch/u" 2>&1
[ $? = 2 ] && [ "$(wc -l <"$scratch/u")" = 2 ] &&
	grep -qx 'fchmodat2ctl: unknown option "--frobnicate"' "$scratch/u"
step $? "fchmodat2ctl with an unknown option exits 2, in one line"
"$ctl" help >"$scratch/h" && grep -q '^Usage: fchmodat2ctl' "$scratch/h"
step $? "fchmodat2ctl help: the usage, exit 0"
[ -z "$("$ctl" -q status)" ] && [ -z "$("$ctl" --quiet check 2>/dev/null)" ]
step $? "fchmodat2ctl -q: nothing on standard output"
"$ctl" --json load >/dev/null 2>&1
[ $? = 2 ]
step $? "fchmodat2ctl --json load exits 2 (status and check only)"

echo "# the header on every ABI a compiler here builds for"
cat >"$scratch/nr.c" <<'EOF'
#include <sys/stat.h>
#include "fchmodat2.h"
_Static_assert(__NR_fchmodat2 == NR, "__NR_fchmodat2");
_Static_assert(SYS_fchmodat2 == NR, "SYS_fchmodat2");
_Static_assert(AT_SYMLINK_NOFOLLOW == 0x100 && AT_EMPTY_PATH == 0x1000, "AT_");
int (*f)(int, const char *, mode_t, int) = fchmodat2;
int (*g)(int, const char *, mode_t, int) = fchmodat2_compat;
EOF
# Without gcc-multilib (Debian's cross compilers conflict with it), the
# biarch headers of the 64-bit libc and kernel serve -m32 and -mx32 alike.
biarch="-isystem /usr/include/$(gcc -print-multiarch)"
for abi in "gcc -m64:452" "gcc -m32 $biarch:452" \
	   "gcc -mx32 $biarch:(0x40000000 | 452)" \
	   "aarch64-linux-gnu-gcc:452" "arm-linux-gnueabihf-gcc:452"; do
	cc=${abi%%:*} nr=${abi#*:}
	# (Debian's gcc-multilib and its cross compilers exclude each other;
	# a build chroot has neither: the libc headers of nr.c decide, -m32
	# needs gnu/stubs-32.h, from libc6-dev-i386)
	if ! printf '#include <sys/stat.h>\n#include <sys/syscall.h>\n' |
		$cc -E -x c - -o /dev/null >/dev/null 2>&1; then
		step_skipped "no compiler or libc headers for this ABI" \
			"header, ${cc%% -isystem*}"
		continue
	fi
	$cc -std=c99 -pedantic -Wall -Werror -I"$top/userspace" -DNR="$nr" \
		-c -o /dev/null "$scratch/nr.c"
	step $? "header, ${cc%% -isystem*}: __NR_fchmodat2 is $nr"
done
if command -v g++ >/dev/null; then
	g++ -x c++ -Wall -Werror -I"$top/userspace" -DNR=452 -D_Static_assert=static_assert \
		-c -o /dev/null "$scratch/nr.c"
	step $? "header, g++: compiles as C++"
else
	step_skipped "no C++ compiler here (g++)" \
		"header, g++"
fi

echo "# the shared library"
readelf -d "$O/libfchmodat2.so" | grep -q 'SONAME.*\[libfchmodat2\.so\.0\]'
step $? "libfchmodat2.so: soname libfchmodat2.so.0"
syms=$(nm -D --defined-only "$O/libfchmodat2.so" | awk '$2 == "T" { print $3 }' | sort | tr '\n' ' ')
[ "$syms" = "fchmodat2@@FCHMODAT2_0 fchmodat2_compat@@FCHMODAT2_0 " ]
step $? "libfchmodat2.so exports fchmodat2 and fchmodat2_compat only, versioned ($syms)"
syms=$(nm -D --defined-only "$preload" | awk '$2 == "T" { print $3 }' | sort | tr '\n' ' ')
[ "$syms" = "fchmodat lchmod " ]
step $? "libfchmodat2-preload.so exports fchmodat and lchmod only ($syms)"

echo "# man pages"
for page in "$top/man/fchmodat2.3" "$top/man/fchmodat2ctl.8"; do
	out=
	head -n 1 "$page" | grep -q '^\.\\" SPDX-License-Identifier: GPL-2.0$' &&
		out=$(LC_ALL=C.UTF-8 groff -man -Tutf8 -ww -z "$page" 2>&1) &&
		[ -z "$out" ] &&
		out=$(MANWIDTH=80 man -l "$page" 2>&1 >/dev/null) &&
		[ -z "$out" ]
	step $? "$(basename "$page"): SPDX line, groff -ww and man -l without a warning $out"
done

echo "# make install, pkg-config, a program built against the installed library"
dest=$scratch/dest
multi=/usr/lib/$(gcc -print-multiarch)
make -s -C "$top/userspace" O="$O" DESTDIR="$dest" PREFIX=/usr LIBDIR="$multi" \
	install >"$scratch/i" 2>&1
rc=$?
want="usr/include/fchmodat2.h ${multi#/}/fchmodat2/libfchmodat2-preload.so ${multi#/}/libfchmodat2.a ${multi#/}/libfchmodat2.so ${multi#/}/libfchmodat2.so.0 ${multi#/}/libfchmodat2.so.$version ${multi#/}/pkgconfig/fchmodat2.pc usr/sbin/fchmodat2ctl usr/share/man/man3/fchmodat2.3 usr/share/man/man3/fchmodat2_compat.3 usr/share/man/man8/fchmodat2ctl.8 "
got=$(cd "$dest" && find . ! -type d | sed 's|^\./||' | sort | tr '\n' ' ')
[ "$rc" = 0 ] && [ "$got" = "$want" ]
step $? "make install DESTDIR= PREFIX=/usr LIBDIR=$multi: the expected files"
[ "$got" = "$want" ] || { echo "# want: $want"; echo "# got:  $got"; cat "$scratch/i"; }
pc() { PKG_CONFIG_PATH='' PKG_CONFIG_LIBDIR=$dest$multi/pkgconfig \
	PKG_CONFIG_SYSROOT_DIR=$dest PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 \
	PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 pkg-config "$@"; }
[ "$(pc --modversion fchmodat2)" = "$version" ] &&
	[ "$(PKG_CONFIG_LIBDIR=$dest$multi/pkgconfig pkg-config --variable=libdir fchmodat2)" = "$multi" ]
step $? "fchmodat2.pc: version $version, libdir $multi"
cat >"$scratch/user.c" <<'EOF'
#include <errno.h>
#include <stdio.h>
#include <fchmodat2.h>
int main(void)
{
	int ret = fchmodat2_compat(AT_FDCWD, "/", 0755, 0x1);

	return !(ret == -1 && errno == EINVAL);
}
EOF
# shellcheck disable=SC2046
gcc -Wall -Werror -o "$scratch/user" "$scratch/user.c" $(pc --cflags --libs fchmodat2) &&
	LD_LIBRARY_PATH=$dest$multi "$scratch/user" &&
	readelf -d "$scratch/user" | grep -q 'NEEDED.*\[libfchmodat2\.so\.0\]'
step $? "a program built with pkg-config's flags links libfchmodat2.so.0 and runs"
make -s -C "$top/userspace" O="$O" DESTDIR="$dest" PREFIX=/usr LIBDIR="$multi" \
	uninstall >/dev/null 2>&1 && [ -z "$(find "$dest" ! -type d)" ]
step $? "make uninstall removes every file"

echo "# userspace: $steps steps, $failed failed, $skipped skipped; unit test cases: $cases_pass passed, $cases_fail failed"
echo "$((steps - failed - skipped + cases_pass)) passed, $((failed + cases_fail)) failed, $skipped skipped"
[ "$failed" = 0 ]
