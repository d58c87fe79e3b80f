#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Inside the VM guest: the stock kernel, no module. Four threads make
# system calls on parallel vCPUs while the raw_syscalls:sys_enter trace
# event is enabled and disabled TOGGLES times (/f2/stress.conf): the
# kernel patches the tracepoint's static branch in syscall_trace_enter()
# (text_poke_bp: int3, then the new bytes) under the other CPU's feet.
# tests/vm/emulator-check.sh runs it on both emulators.

cd /f2 || exit 1
. ./steps.sh
. ./stress.conf

[ -r /proc/modules ] && [ -z "$(cat /proc/modules)" ]
step $? "no module is loaded: the stock kernel"
preemption_checks
mount -t tracefs nodev /sys/kernel/tracing
step $? "mount tracefs"
run ./stress toggle "$TOGGLES" /tmp
kernel_log_checks
finish
