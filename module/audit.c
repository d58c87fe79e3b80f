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
 * <asm-generic/audit_*.h>. Its address is taken from the code of
 * audit_match_class(), which reads it (and from kallsyms where kallsyms
 * lists data). The module builds the same lists from the same headers
 * (audit_lists.c, audit_compat.c) and accepts an address only if every
 * class it holds is exactly one of those lists and the unused ones are
 * empty, and only if exactly one address does: found by content, or the
 * load is refused. Then the bit of
 * 452 is set in the change attributes class (and its 32-bit twin), and
 * cleared again on unload. Rules that name classes explicitly were
 * expanded into syscall masks when they were added; auditctl's "-S all"
 * and watches already hold every number, and their "perm" field is what
 * reads the class, at each system call's exit.
 */
#include <linux/audit.h>
#include <linux/uaccess.h>
#include <linux/string.h>
#include <linux/bitops.h>
#ifdef CONFIG_ARM64
#include <asm/insn.h>
#endif
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
	int class;

	if (!addr || copy_from_kernel_nofault(classes, (void *)addr,
					      sizeof(classes)))
		return false;
	/* the shape first: no pointer followed before it fits */
	for (class = 0; class < AUDIT_SYSCALL_CLASSES; class++)
		if (!classes[class] !=
		    (f2_audit_expected(class, want) == -ENOENT))
			return false;
	for (class = 0; class < AUDIT_SYSCALL_CLASSES; class++) {
		if (!classes[class])
			continue;
		if (f2_audit_expected(class, want) ||
		    copy_from_kernel_nofault(have, classes[class],
					     sizeof(have)) ||
		    memcmp(have, want, sizeof(have)))
			return false;
	}
	return true;
}

/*
 * Candidates for the address of classes[]: the data that
 * audit_match_class(), a function every kernel with syscall auditing has
 * in kallsyms, reads it from; and the name itself where kallsyms lists
 * data (KALLSYMS_ALL: Debian's x86_64 kernels, not its arm64 ones). Each
 * is then checked by content: a wrong one cannot hold 16 pointers to
 * exactly the class bitmaps.
 */
#define F2_MAX_CANDIDATES 16

static int f2_audit_add(unsigned long *cand, int n, unsigned long addr)
{
	int i;

	if (!addr || n == F2_MAX_CANDIDATES)
		return n;
	for (i = 0; i < n; i++)
		if (cand[i] == addr)
			return n;
	cand[n] = addr;
	return n + 1;
}

#if defined(CONFIG_ARM64)
/* ADRP Xd, page; then ADD Xd', Xd, #imm (:lo12:) or the page itself */
static int f2_audit_decode(unsigned long fn, unsigned long size,
			   unsigned long *cand, int n)
{
	unsigned long pc, q, page, imm;
	u32 insn, add;

	for (pc = fn; pc + 4 <= fn + size; pc += 4) {
		insn = le32_to_cpu(*(__le32 *)pc);
		if (!aarch64_insn_is_adrp(insn))
			continue;
		imm = ((insn >> 5) & 0x7ffff) << 2 | ((insn >> 29) & 3);
		page = (pc & ~0xfffUL) + (sign_extend64(imm, 20) << 12);
		n = f2_audit_add(cand, n, page);
		for (q = pc + 4; q + 4 <= fn + size; q += 4) {
			add = le32_to_cpu(*(__le32 *)q);
			/* 64-bit ADD (immediate) whose source is the ADRP's */
			if (!aarch64_insn_is_add_imm(add) || !(add >> 31) ||
			    ((add >> 5) & 0x1f) != (insn & 0x1f))
				continue;
			imm = (add >> 10) & 0xfff;
			if (add & BIT(22))
				imm <<= 12;
			n = f2_audit_add(cand, n, page + imm);
		}
	}
	return n;
}
#elif defined(CONFIG_X86_64)
/*
 * A 64-bit load or address of a 32-bit displacement: REX.W 8b/8d with
 * ModRM mod 00 and either SIB without base (disp32, sign-extended: the
 * kernel's -mcmodel=kernel addresses) or rm 101 (RIP-relative). A byte
 * scan: a false match only adds a candidate the content check rejects.
 */
static int f2_audit_decode(unsigned long fn, unsigned long size,
			   unsigned long *cand, int n)
{
	unsigned long p;
	u8 *op;
	s32 disp;

	for (p = fn; p + 8 <= fn + size; p++) {
		op = (u8 *)p;
		if ((op[0] & 0xfb) != 0x48 || (op[1] != 0x8b && op[1] != 0x8d) ||
		    (op[2] & 0xc0) != 0)
			continue;
		if ((op[2] & 7) == 4 && (op[3] & 7) == 5) {
			memcpy(&disp, op + 4, sizeof(disp));
			n = f2_audit_add(cand, n, (unsigned long)(long)disp);
		} else if ((op[2] & 7) == 5) {
			memcpy(&disp, op + 3, sizeof(disp));
			n = f2_audit_add(cand, n, p + 7 + (long)disp);
		}
	}
	return n;
}
#endif

/* The one address that holds the class array, or 0. */
static unsigned long f2_audit_find_classes(void)
{
	unsigned long cand[F2_MAX_CANDIDATES], fn, found = 0;
	int i, n = 0;

	fn = f2_lookup_name("audit_match_class");
	if (fn)
		n = f2_audit_decode(fn, f2_symbol_size(fn), cand, n);
	n = f2_audit_add(cand, n, f2_lookup_name("classes"));
	for (i = 0; i < n; i++) {
		if (!f2_audit_is_classes(cand[i]))
			continue;
		if (found)
			return 0;	/* two of them: not unambiguous */
		found = cand[i];
	}
	return found;
}

int f2_audit_init(void)
{
	static const int chattr[2] = {
		AUDIT_CLASS_CHATTR, AUDIT_CLASS_CHATTR_32,
	};
	const u32 bit = AUDIT_BIT(F2_NR_FCHMODAT2);
	const int word = AUDIT_WORD(F2_NR_FCHMODAT2);
	unsigned long addr = f2_audit_find_classes();
	u32 **classes;
	int i;

	if (f2_audit_check_fails() || !addr) {
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
