// SPDX-License-Identifier: GPL-2.0
/*
 * Test helper for the VM, never for a real machine: a second ftrace direct
 * call (as samples/ftrace/ftrace-direct.c, or a BPF trampoline, attaches
 * one) on the function at addr (syscall_trace_enter, from /proc/kallsyms).
 * The trampoline counts its calls in f2_direct_hits and returns. ftrace
 * allows one direct call per function: next to fchmodat2.ko this one is
 * refused (-EBUSY), and fchmodat2.ko refuses to load next to it.
 * x86_64, kernels 5.7 to 6.4 (register_ftrace_direct(ip, addr)).
 */
#include <linux/module.h>
#include <linux/ftrace.h>
#include <asm/linkage.h>
#include "f2_direct.h"

/* the trampoline's landing pad under IBT (5.18+; none before) */
#ifndef ASM_ENDBR
#define ASM_ENDBR ""
#endif

static unsigned long addr;
module_param(addr, ulong, 0444);
MODULE_PARM_DESC(addr, "the function's address (/proc/kallsyms)");

static unsigned long f2_direct_hits;
module_param(f2_direct_hits, ulong, 0444);

asm(
"	.pushsection .text, \"ax\", @progbits\n"
"	.type f2_direct_tramp, @function\n"
"	.globl f2_direct_tramp\n"
"f2_direct_tramp:\n"
	ASM_ENDBR
"	lock incq f2_direct_hits(%rip)\n"
	ASM_RET
"	.size f2_direct_tramp, .-f2_direct_tramp\n"
"	.popsection\n"
);

static int __init f2_direct_init(void)
{
	int err = register_ftrace_direct(addr, (unsigned long)f2_direct_tramp);

	if (err)
		pr_info("f2_direct: register_ftrace_direct: %d\n", err);
	return err;
}

static void __exit f2_direct_exit(void)
{
	unregister_ftrace_direct(addr, (unsigned long)f2_direct_tramp);
}

module_init(f2_direct_init);
module_exit(f2_direct_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("fchmodat2 test helper: a second ftrace direct call");
