#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the VM guest for "make demo": fchmodat2 before and after the
# module, in words.

cd /f2 || exit 1
mkdir -p /tmp/demo && cd /tmp/demo || exit 1
echo secret >file
chmod 600 file
ln -s file link
show() { stat -c '    %A %a  %N' file link; }

cat <<TXT

================================================================
 This guest runs Debian 12's kernel $(uname -r).
 It has no fchmodat2 system call (number 452): glibc 2.39+, musl,
 Go, runc and coreutils call it, and today they get ENOSYS.
================================================================

Two files in /tmp/demo:
TXT
show
echo
echo "1. Without the module, the kernel does not know system call 452:"
echo -n "   "; /f2/f2call file 644
echo
echo "2. Load the module:  insmod fchmodat2.ko"
insmod /f2/fchmodat2.ko || { echo "   insmod FAILED"; exit 1; }
echo "   the kernel says: $(dmesg | grep 'fchmodat2: version' | tail -n 1 | sed 's/^\[[^]]*\] //')"
echo
echo "3. The same call now changes the file's mode:"
echo -n "   "; /f2/f2call file 644 || exit 1
show
echo
echo "4. With AT_SYMLINK_NOFOLLOW on a symlink, fchmodat2 refuses, as on"
echo "   Linux 6.6+: symlinks have no mode of their own to change."
echo -n "   "
/f2/f2call link 600 nofollow && exit 1
echo "   The symlink and its target are left untouched:"
show
echo
echo "5. Unload the module:  rmmod fchmodat2"
rmmod fchmodat2 || exit 1
echo -n "   "; /f2/f2call file 600
echo
echo "That is all: 452 works while the module is loaded, exactly as on a"
echo "kernel that has it, and the module leaves cleanly."
