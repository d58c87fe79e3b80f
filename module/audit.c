// SPDX-License-Identifier: GPL-2.0
/*
 * Audit: while the module is loaded, system call 452 belongs to the
 * "change attributes" class of every ABI that has class tables, as in
 * mainline since fchmodat2 was added ("audit: add fchmodat2() to change
 * attributes class", include/asm-generic/audit_change_attr.h). The class
 * decides whether a file watch ("auditctl -w FILE -p a") or a rule with
 * "-F perm=a" logs a call:
 * without 452 in it, fchmodat2 would change a watched file's mode with no
 * record, where fchmodat is logged. The kernel's own class list has 452
 * only under #ifdef __NR_fchmodat2, which kernels before 6.6 never define.
 *
 * The classes live in kernel/auditfilter.c: a static array of 16
 * pointers, "classes", each to a bitmap of AUDIT_BITMASK_SIZE words that
 * audit_register_class() allocated at boot from the lists of
 * <asm-generic/audit_*.h>. The module builds the same lists from the same
 * headers (audit_lists.c, audit_compat.c) and accepts the array only if
 * every class it holds is exactly one of those lists and the unused ones
 * are empty: found by content, or the load is refused. Then the bit of
 * 452 is set in the change attributes class (and its 32-bit twin), and
 * cleared again on unload. Rules that name classes explicitly were
 * expanded into syscall masks when they were added; auditctl's "-S all"
 * and watches already hold every number, and their "perm" field is what
 * reads the class, at each system call's exit.
 */
#include <linux/audit.h>
#include <linux/uaccess.h>
#include <linux/string.h>
#include "fchmodat2.h"

#ifdef CONFIG_AUDITSYSCALL

#define F2_CLASS_WORDS AUDIT_BITMASK_SIZE

static u32 *f2_chattr[2];	/* the change attributes bitmaps we changed */

/* The expected bitmap of audit class @class: 0, or -ENOENT (no such list) */
static int f2_audit_expected(int class, u32 *bits)
{
	const unsigned int *list;
	unsigned int n;

	if (class & 1)
		list = f2_audit_compat_list(class / 2);
	else
		list = f2_audit_native_list(class);
	if (!list)
		return -ENOENT;
	memset(bits, 0, F2_CLASS_WORDS * sizeof(u32));
	for (; *list != ~0U; list++) {
		n = *list;
		if (n >= F2_CLASS_WORDS * 32 - AUDIT_SYSCALL_CLASSES)
			return -EINVAL;
		bits[AUDIT_WORD(n)] |= AUDIT_BIT(n);
	}
	return 0;
}

/*
 * Whether @addr holds the kernel's class array: each of the 16 entries
 * points to the bitmap the headers give for it, or is NULL where there is
 * no list (the 32-bit ones without a 32-bit ABI, the unused ones).
 */
static bool f2_audit_is_classes(unsigned long addr)
{
	static u32 want[F2_CLASS_WORDS], have[F2_CLASS_WORDS];
	u32 *classes[AUDIT_SYSCALL_CLASSES];
	int class, err;

	if (!addr || copy_from_kernel_nofault(classes, (void *)addr,
					      sizeof(classes)))
		return false;
	for (class = 0; class < AUDIT_SYSCALL_CLASSES; class++) {
		err = f2_audit_expected(class, want);
		if (err == -ENOENT) {
			if (classes[class])
				return false;
			continue;
		}
		if (err || !classes[class] ||
		    copy_from_kernel_nofault(have, classes[class],
					     sizeof(have)) ||
		    memcmp(have, want, sizeof(have)))
			return false;
	}
	return true;
}

int f2_audit_init(void)
{
	static const int chattr[2] = {
		AUDIT_CLASS_CHATTR, AUDIT_CLASS_CHATTR_32,
	};
	const u32 bit = AUDIT_BIT(F2_NR_FCHMODAT2);
	const int word = AUDIT_WORD(F2_NR_FCHMODAT2);
	unsigned long addr = f2_lookup_name("classes");
	u32 **classes;
	int i;

	if (f2_audit_check_fails() || !f2_audit_is_classes(addr)) {
		pr_err("audit's system call classes (kernel/auditfilter.c) not found, or not the lists this kernel's headers give: unsupported kernel (audit file watches would not see fchmodat2)\n");
		return -EOPNOTSUPP;
	}
	classes = (u32 **)addr;
	for (i = 0; i < ARRAY_SIZE(chattr); i++) {
		u32 *bits = READ_ONCE(classes[chattr[i]]);

		/* on a kernel that has fchmodat2 (takeover=1) it is there */
		if (!bits || (READ_ONCE(bits[word]) & bit))
			continue;
		WRITE_ONCE(bits[word], bits[word] | bit);
		f2_chattr[i] = bits;
	}
	return 0;
}

void f2_audit_exit(void)
{
	const u32 bit = AUDIT_BIT(F2_NR_FCHMODAT2);
	const int word = AUDIT_WORD(F2_NR_FCHMODAT2);
	int i;

	for (i = 0; i < ARRAY_SIZE(f2_chattr); i++) {
		if (!f2_chattr[i])
			continue;
		WRITE_ONCE(f2_chattr[i][word], f2_chattr[i][word] & ~bit);
		f2_chattr[i] = NULL;
	}
}

#else /* !CONFIG_AUDITSYSCALL: no system call auditing, no classes */

int f2_audit_init(void)
{
	return 0;
}

void f2_audit_exit(void)
{
}

#endif
