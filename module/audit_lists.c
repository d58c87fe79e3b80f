// SPDX-License-Identifier: GPL-2.0
/*
 * The audit system call classes of the native ABI, built from the same
 * headers as the kernel's own (arch/x86/kernel/audit_64.c, lib/audit.c),
 * so that module/audit.c can recognise the kernel's class bitmaps by
 * their content. A list of numbers ended by ~0U, as audit_register_class()
 * takes them. __NR_fchmodat2 is not defined before 6.6: the change
 * attributes list has no 452 here, as in the kernel.
 */
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/audit.h>
#include <asm/unistd.h>
#include "fchmodat2.h"

static const unsigned int f2_dir_class[] = {
#include <asm-generic/audit_dir_write.h>
~0U
};

static const unsigned int f2_read_class[] = {
#include <asm-generic/audit_read.h>
~0U
};

static const unsigned int f2_write_class[] = {
#include <asm-generic/audit_write.h>
~0U
};

static const unsigned int f2_chattr_class[] = {
#include <asm-generic/audit_change_attr.h>
~0U
};

static const unsigned int f2_signal_class[] = {
#include <asm-generic/audit_signal.h>
~0U
};

const unsigned int *f2_audit_native_list(int class)
{
	switch (class) {
	case AUDIT_CLASS_DIR_WRITE:
		return f2_dir_class;
	case AUDIT_CLASS_READ:
		return f2_read_class;
	case AUDIT_CLASS_WRITE:
		return f2_write_class;
	case AUDIT_CLASS_CHATTR:
		return f2_chattr_class;
	case AUDIT_CLASS_SIGNAL:
		return f2_signal_class;
	}
	return NULL;
}
