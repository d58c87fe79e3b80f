# SPDX-License-Identifier: GPL-2.0
#
# The subsystem test sets, sourced by guest.sh (busybox sh in the VM) and
# by host.sh (natively on this machine), so that both run exactly the same
# commands. Needs steps.sh's step(), run_tap() and tap_result();
# $SUBSYS_BIN holds the static programs.
#
# Every program's output is framed by
#   # subsys-run SET FS BITS
#   ... its TAP lines ...
#   # subsys-end SET FS BITS rc=N
# so that the host can file each run's per-test results (run-vm.sh) and
# compare them between kernels.
#
# SUBSYS_BITS: the callers' bitnesses, "64 32" unless the caller narrows it
# (host.sh, on a machine that cannot execute i386 programs).

# subsys_run SET FS BITS PROGRAM [ARG...]: one framed run, and a harness step.
subsys_run() {
	set_=$1 fs_=$2 bits_=$3
	shift 3
	echo "# subsys-run $set_ $fs_ $bits_"
	run_tap "$@"
	echo "# subsys-end $set_ $fs_ $bits_ rc=$rc_"
	step "$rc_" "$set_ on $fs_, $bits_-bit: $*"
}

# subsys_prog NAME BITS: the path of NAME's build for BITS.
subsys_prog() {
	if [ "$2" = 32 ]; then
		echo "$SUBSYS_BIN/${1}32"
	else
		echo "$SUBSYS_BIN/$1"
	fi
}

# subsys_fs_sets FS MOUNTPOINT [DEVICE]: everything that depends on the
# filesystem, on the one mounted at MOUNTPOINT (DEVICE: subsys_fs may unmount
# it and mount DEVICE there again).
subsys_fs_sets() {
	fs=$1 mp=$2 dev=${3:-}
	for bits in ${SUBSYS_BITS:-64 32}; do
		subsys_run test "$fs" "$bits" "$(subsys_prog fchmodat2_test "$bits")" -d "$mp"
		subsys_run creds "$fs" "$bits" "$(subsys_prog subsys_creds "$bits")" -d "$mp"
		subsys_run acl "$fs" "$bits" "$(subsys_prog subsys_acl "$bits")" -d "$mp"
		if [ -n "$dev" ]; then
			subsys_run fs "$fs" "$bits" "$(subsys_prog subsys_fs "$bits")" \
				-m "$mp" -D "$dev" -t "$fs"
		else
			subsys_run fs "$fs" "$bits" "$(subsys_prog subsys_fs "$bits")" -m "$mp"
		fi
	done
}

# subsys_tmpfs_sets SET DIR: the program subsys_SET, 64- and 32-bit, in a
# directory below DIR (on tmpfs). The sets:
#   vfs      /proc/PID/fd magic links, overlayfs (mounted below DIR)
#   ptrace   ptrace stops and rewritten arguments
#   seccomp  seccomp filters and notifications
#   audit    the records of an exit rule on 452 (VM only: the program
#            enables audit and registers as the audit daemon)
#   nfs      NFSv4.2 on the loopback interface: the kernel's nfsd exports
#            a directory below DIR, its client mounts it back (VM only:
#            nfsd is machine-wide)
subsys_tmpfs_sets() {
	for bits in ${SUBSYS_BITS:-64 32}; do
		subsys_run "$1" tmpfs "$bits" "$(subsys_prog "subsys_$1" "$bits")" -d "$2"
	done
}

# subsys_audit_nomod_sets TAG DIR: where 452 is ENOSYS (5.10 and 6.1 before
# the module is loaded, and after it is unloaded), 452 is not in audit's
# change attributes class (set audit-TAG-nomod: checked, not compared).
subsys_audit_nomod_sets() {
	for bits in ${SUBSYS_BITS:-64 32}; do
		subsys_run "audit-$1-nomod" tmpfs "$bits" \
			"$(subsys_prog subsys_audit "$bits")" -d "$2" nomod
	done
}

# subsys_strace_tap DIR TRIXIE BITS: Debian 13's strace (which knows
# fchmodat2 by name) traces f2call, BITS-bit: the call and its real result
# as strace shows them; then strace's fault injection, which at the entry
# stop replaces the call by an error or a return value: the kernel must
# obey, and the file must stay as it was. Prints TAP.
subsys_strace_tap() {
	dir=$1/strace$3 ld=$(subsys_trixie "$2") strace_=$2/usr/bin/strace
	call_=$(subsys_prog f2call "$3")
	fails_=0
	echo "TAP version 13"
	echo "1..4"
	rm -rf "$dir"
	mkdir -p "$dir" && : >"$dir/file" && chmod 0644 "$dir/file" &&
		ln -s file "$dir/link" || echo "Bail out! cannot make $dir"
	n_=0
	# st_ NAME EXIT LINE MODES [strace option...] -- PATH MODE [nofollow]:
	# f2call under strace exits EXIT, strace prints exactly LINE, and
	# then "stat -c %a" of file and link gives MODES
	st_() {
		name_=$1 exit_=$2 line_=$3 modes_=$4
		shift 4
		opts_=
		while [ "$1" != -- ]; do
			opts_="$opts_ $1"
			shift
		done
		shift
		n_=$((n_ + 1))
		# shellcheck disable=SC2086 # the loader command and options are words
		$ld "$strace_" -qq -o "$dir/out" -e trace=fchmodat2 $opts_ \
			"$call_" "$@" >/dev/null
		rc_=$?
		got_=$(cat "$dir/out")
		m_="$(stat -c %a "$dir/file") $(stat -c %a "$dir/link")"
		echo "# exit $rc_, modes $m_: $got_"
		[ "$rc_" = "$exit_" ] && [ "$got_" = "$line_" ] && [ "$m_" = "$modes_" ]
		tap_ "$n_" $? "$name_"
	}
	st_ strace_shows_fchmodat2_and_its_result 0 \
		"fchmodat2(AT_FDCWD, \"$dir/file\", 0600, AT_SYMLINK_NOFOLLOW) = 0" \
		"600 777" -- "$dir/file" 600 nofollow
	st_ strace_shows_eopnotsupp_for_a_symlink 1 \
		"fchmodat2(AT_FDCWD, \"$dir/link\", 0640, AT_SYMLINK_NOFOLLOW) = -1 EOPNOTSUPP (Operation not supported)" \
		"600 777" -- "$dir/link" 640 nofollow
	st_ strace_injected_error_replaces_the_call 1 \
		"fchmodat2(AT_FDCWD, \"$dir/file\", 0644, 0) = -1 EPERM (Operation not permitted) (INJECTED)" \
		"600 777" -e inject=fchmodat2:error=EPERM -- "$dir/file" 644
	st_ strace_injected_retval_replaces_the_call 0 \
		"fchmodat2(AT_FDCWD, \"$dir/file\", 0644, 0) = 0 (INJECTED)" \
		"600 777" -e inject=fchmodat2:retval=0 -- "$dir/file" 644
	rm -rf "$dir"
	[ "$fails_" = 0 ]
}

# subsys_strace_sets DIR TRIXIE: subsys_strace_tap for 64- and 32-bit callers.
subsys_strace_sets() {
	for bits in ${SUBSYS_BITS:-64 32}; do
		subsys_run strace tmpfs "$bits" subsys_strace_tap "$1" "$2" "$bits"
	done
}

# subsys_trixie DIR: the command prefix that runs DIR's (Debian 13's) dynamic
# programs through DIR's own loader and glibc (x86_64 or AArch64).
subsys_trixie() {
	case $(uname -m) in
	aarch64) echo "$1/usr/lib/ld-linux-aarch64.so.1 --library-path $1/usr/lib/aarch64-linux-gnu" ;;
	*) echo "$1/usr/lib64/ld-linux-x86-64.so.2 --library-path $1/usr/lib/x86_64-linux-gnu" ;;
	esac
}

# subsys_chmod_tap DIR TRIXIE EXPECT: Debian 13's chmod -R over a tree of
# 3000 files, and chmod -h on a symlink, with /proc not mounted (a
# private mount namespace). EXPECT "452": everything changed, no error;
# "fallback" (no fchmodat2): glibc's emulation cannot work without /proc
# and says EOPNOTSUPP, which chmod takes for "a symlink, leave it": exit 0,
# not one message, and nothing below the top changed. Prints TAP.
subsys_chmod_tap() {
	dir=$1 ld=$(subsys_trixie "$2") expect=$3
	chmod_=$2/usr/bin/chmod
	fails_=0
	echo "TAP version 13"
	echo "1..4"
	rm -rf "$dir/tree"
	"$SUBSYS_BIN/subsys_tree" -m "$dir/tree" 3000
	unshare -m --propagation private sh -c "umount -l /proc && ! [ -e /proc/self ] &&
		$ld $chmod_ -R 0700 '$dir/tree'" 2>"$dir/chmod.err"
	rc=$?
	errs=$(wc -l <"$dir/chmod.err")
	eop=$(grep -c 'Operation not supported' "$dir/chmod.err")
	echo "# chmod -R 0700, no /proc: exit $rc, $errs error lines, $eop EOPNOTSUPP"
	head -n 3 "$dir/chmod.err" | sed 's/^/# /'
	if [ "$expect" = 452 ]; then
		[ "$rc" = 0 ] && [ "$errs" = 0 ]
		tap_ 1 $? "chmod_R_without_proc_exits_0_without_errors"
		"$SUBSYS_BIN/subsys_tree" -c "$dir/tree" 0700
		tap_ 2 $? "tree_files_and_directories_0700_symlinks_0777"
	else
		[ "$rc" = 0 ] && [ "$errs" = 0 ]
		tap_ 1 $? "chmod_R_without_452_and_proc_exits_0_without_errors"
		# ...having changed nothing but the top directory
		same_=0
		for d in 0 9 29; do
			"$SUBSYS_BIN/subsys_tree" -c "$dir/tree/d$d" 0644 0755 ||
				same_=1
		done
		[ "$same_" = 0 ] && [ "$(stat -c %a "$dir/tree")" = 700 ]
		tap_ 2 $? "but_nothing_below_the_top_changed"
	fi
	ln -s tree "$dir/tlink"
	unshare -m --propagation private sh -c "umount -l /proc && $ld $chmod_ -h 0600 '$dir/tlink'" \
		2>"$dir/chmod.err"
	rc=$?
	echo "# chmod -h 0600 symlink, no /proc: exit $rc $(cat "$dir/chmod.err")"
	[ "$rc" = 0 ]
	tap_ 3 $? "chmod_h_symlink_exits_0"
	[ "$(stat -c %a "$dir/tlink")" = 777 ]
	tap_ 4 $? "chmod_h_symlink_mode_unchanged"
	rm -rf "$dir/tree" "$dir/tlink" "$dir/chmod.err"
	[ "$fails_" = 0 ]
}
tap_() { # tap_ N STATUS NAME: a shell program's result (steps.sh)
	tap_result "$1" "$2" "$3" || fails_=$((fails_ + 1))
}

# subsys_clients_sets DIR TRIXIE [SUFFIX]: glibc 2.41 and chmod 9.7 of Debian
# 13, /proc not mounted; SUFFIX "-nomod" names the runs before the module
# is loaded (no fchmodat2: glibc's fallback).
subsys_clients_sets() {
	sfx=${3:-}
	expect=452
	[ -n "$sfx" ] && expect=fallback
	# shellcheck disable=SC2046 # the loader command is words
	subsys_run "libc$sfx" tmpfs 64 $(subsys_trixie "$2") "$SUBSYS_BIN/subsys_libc" -d "$1"
	subsys_run "chmod$sfx" tmpfs 64 subsys_chmod_tap "$1" "$2" "$expect"
}

# subsys_lsm_sets DIR TRIXIE: an AppArmor profile denying chmod below
# DIR/subsys-lsm*/deny, loaded with Debian 13's apparmor_parser (VM only).
subsys_lsm_sets() {
	cat >/tmp/subsys_lsm.profile <<PROFILE
profile subsys_lsm flags=(attach_disconnected) {
  /** rwlkmix,
  capability,
  audit deny $1/subsys-lsm*/deny/** w,
}
PROFILE
	# shellcheck disable=SC2046
	$(subsys_trixie "$2") "$2/usr/sbin/apparmor_parser" -r -K -T \
		/tmp/subsys_lsm.profile
	step $? "apparmor_parser loads a profile denying chmod below $1/subsys-lsm*/deny"
	# every denial must reach the kernel log: no printk rate limit
	echo 0 >/proc/sys/kernel/printk_ratelimit
	for bits in ${SUBSYS_BITS:-64 32}; do
		subsys_run lsm tmpfs "$bits" "$(subsys_prog subsys_lsm "$bits")" \
			-d "$1/subsys-lsm$bits" -p subsys_lsm
	done
}
