# SPDX-License-Identifier: GPL-2.0
#
# The gatekeeper test sets, sourced by guest.sh (busybox sh in the VM) and
# by host.sh (natively on this machine), so that both run exactly the same
# commands. Needs steps.sh's step(); $GK_BIN holds the static programs.
#
# Every program's output is framed by
#   # gk-run SET FS BITS
#   ... its TAP lines ...
#   # gk-end SET FS BITS rc=N
# so that the host can file each run's per-test results (run-vm.sh) and
# compare them between kernels.

# gk_run SET FS BITS PROGRAM [ARG...]: one framed run, and a harness step.
gk_run() {
	set_=$1 fs_=$2 bits_=$3
	shift 3
	echo "# gk-run $set_ $fs_ $bits_"
	"$@"
	rc_=$?
	echo "# gk-end $set_ $fs_ $bits_ rc=$rc_"
	step "$rc_" "$set_ on $fs_, $bits_-bit: $*"
}

# gk_prog NAME BITS: the path of NAME's build for BITS.
gk_prog() {
	if [ "$2" = 32 ]; then
		echo "$GK_BIN/${1}32"
	else
		echo "$GK_BIN/$1"
	fi
}

# gk_fs_sets FS MOUNTPOINT [DEVICE]: everything that depends on the
# filesystem, on the one mounted at MOUNTPOINT (DEVICE: gk_fs may unmount
# it and mount DEVICE there again).
gk_fs_sets() {
	fs=$1 mp=$2 dev=${3:-}
	for bits in 64 32; do
		gk_run test "$fs" "$bits" "$(gk_prog fchmodat2_test "$bits")" -d "$mp"
		gk_run creds "$fs" "$bits" "$(gk_prog gk_creds "$bits")" -d "$mp"
		if [ -n "$dev" ]; then
			gk_run fs "$fs" "$bits" "$(gk_prog gk_fs "$bits")" \
				-m "$mp" -D "$dev" -t "$fs"
		else
			gk_run fs "$fs" "$bits" "$(gk_prog gk_fs "$bits")" -m "$mp"
		fi
	done
}

# gk_process_sets DIR: seccomp and ptrace, in a directory on tmpfs.
gk_process_sets() {
	for bits in 64 32; do
		gk_run seccomp tmpfs "$bits" "$(gk_prog gk_seccomp "$bits")" -d "$1"
		gk_run ptrace tmpfs "$bits" "$(gk_prog gk_ptrace "$bits")" -d "$1"
	done
}
