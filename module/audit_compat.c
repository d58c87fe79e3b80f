// SPDX-License-Identifier: GPL-2.0
/*
 * The audit system call classes of the 32-bit ABI (i386 on x86_64,
 * AArch32 on arm64), built as the kernel builds its own
 * (arch/x86/ia32/audit.c, lib/compat_audit.c): the class headers read
 * with the 32-bit ABI's numbers, nothing else included that could define
 * the native ones (Kbuild leaves module/compat.h out of this file).
 */
#include <linux/types.h>
#if defined(CONFIG_X86_64)
#include <asm/unistd_32.h>
#elif defined(CONFIG_ARM64)
#include <asm/unistd32.h>
#endif

#if defined(CONFIG_IA32_EMULATION) || defined(CONFIG_AUDIT_COMPAT_GENERIC)
#define F2_HAVE_COMPAT_CLASSES
#endif

#ifdef F2_HAVE_COMPAT_CLASSES
static const unsigned int f2_compat_dir_class[] = {
#include <asm-generic/audit_dir_write.h>
~0U
};

static const unsigned int f2_compat_chattr_class[] = {
#include <asm-generic/audit_change_attr.h>
~0U
};

static const unsigned int f2_compat_read_class[] = {
#include <asm-generic/audit_read.h>
~0U
};

static const unsigned int f2_compat_write_class[] = {
#include <asm-generic/audit_write.h>
~0U
};

static const unsigned int f2_compat_signal_class[] = {
#include <asm-generic/audit_signal.h>
~0U
};
#endif

const unsigned int *f2_audit_compat_list(int index);

/*
 * @index: 0 dir write, 1 change attributes, 2 read, 3 write, 4 signal
 * (the odd audit classes 1, 3, 5, 7, 9 halved); NULL without a 32-bit
 * ABI, or past the end.
 */
const unsigned int *f2_audit_compat_list(int index)
{
#ifdef F2_HAVE_COMPAT_CLASSES
	switch (index) {
	case 0:
		return f2_compat_dir_class;
	case 1:
		return f2_compat_chattr_class;
	case 2:
		return f2_compat_read_class;
	case 3:
		return f2_compat_write_class;
	case 4:
		return f2_compat_signal_class;
	}
#endif
	return NULL;
}
