// SPDX-License-Identifier: GPL-2.0
/*
 * Resolution of kernel symbols the module needs but the kernel does not
 * export. kallsyms_lookup_name() itself has not been exported since 5.7
 * (commit 0bd476e6c671 "kallsyms: unexport kallsyms_lookup_name() and
 * kallsyms_on_each_symbol()"); a kprobe on it yields its address.
 */
#include <linux/kprobes.h>
#ifdef CONFIG_X86_KERNEL_IBT
#include <asm/ibt.h>
#endif
#include "fchmodat2.h"

static unsigned long (*f2_kallsyms_lookup_name)(const char *name);

int f2_symbols_init(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long addr;
	int err;

	err = register_kprobe(&kp);
	if (err) {
		pr_err("cannot resolve kallsyms_lookup_name (register_kprobe: %d)\n",
		       err);
		return err;
	}
	addr = (unsigned long)kp.addr;
	unregister_kprobe(&kp);
#ifdef CONFIG_X86_KERNEL_IBT
	/*
	 * With IBT, kprobes place a probe on a function's entry past its
	 * ENDBR; an indirect call must land on the ENDBR itself.
	 */
	if (*(u32 *)(addr - ENDBR_INSN_SIZE) == gen_endbr())
		addr -= ENDBR_INSN_SIZE;
#endif
	f2_kallsyms_lookup_name = (void *)addr;
	return 0;
}

unsigned long f2_lookup_name(const char *name)
{
	return f2_kallsyms_lookup_name(name);
}
