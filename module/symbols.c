// SPDX-License-Identifier: GPL-2.0
/*
 * Resolution of kernel symbols the module needs but the kernel does not
 * export. kallsyms_lookup_name() itself has not been exported since 5.7
 * (commit 0bd476e6c671 "kallsyms: unexport kallsyms_lookup_name() and
 * kallsyms_on_each_symbol()"); a kprobe on it yields its address.
 */
#include <linux/kprobes.h>
#include <linux/kallsyms.h>
#include <linux/kernel.h>
#include <linux/string.h>
#ifdef CONFIG_X86_KERNEL_IBT
#include <asm/ibt.h>
#include <asm/cpufeature.h>
#endif
#include "fchmodat2.h"

static unsigned long (*f2_kallsyms_lookup_name)(const char *name);
static int *f2_ftrace_disabled;

/* the suffixes of the copies GCC makes of a static function */
static const char * const f2_suffixes[] = {
	"", ".constprop.0", ".constprop.1", ".isra.0", ".part.0",
};

#ifdef F2_HAVE_KSYMS_WALK
/* Every name the module looks up, each also under those suffixes. */
static const char * const f2_names[] = {
	"ftrace_disabled", "security_path_chmod", "audit_match_class",
	"classes",
#ifdef CONFIG_X86_64
	"__x64_sys_fchmodat2", "syscall_trace_enter", "do_syscall_64",
	"do_int80_syscall_32", "do_int80_emulation", "do_fast_syscall_32",
	"__do_fast_syscall_32", "syscall_enter_from_user_mode",
	"syscall_enter_from_user_mode_work", "x32_enabled_skey",
	"insn_decode", "execmem_alloc", "module_alloc", "set_memory_ro",
	"set_memory_x", "set_memory_rw", "set_memory_nx", "ftrace_location",
#else
	"__arm64_sys_fchmodat2", "sys_ni_syscall", "invoke_syscall",
	"el0_svc_common", "do_el0_svc", "do_el0_svc_compat", "do_ni_syscall",
#endif
};

/*
 * Where kallsyms_lookup_name() scans the symbols until it finds the name
 * (Kbuild: before the binary search of 6.2, commit 60443c88f3a8), it
 * scans all of them for a name that is not there (most suffixed ones):
 * 30 lookups made loading take 0.85 s under emulation on 5.10, 0.42 s
 * with one walk instead. So one kallsyms_on_each_symbol() walk (the
 * kernel's own symbols only there, Kbuild checks) records the first
 * address of each name above, as kallsyms_lookup_name() would return it.
 */
static unsigned long f2_addrs[ARRAY_SIZE(f2_names)][ARRAY_SIZE(f2_suffixes)];
static size_t f2_lens[ARRAY_SIZE(f2_names)];
static bool f2_walked;

/* The slot of @name in f2_addrs, or NULL. */
static unsigned long *f2_slot(const char *name)
{
	int i, j;

	for (i = 0; i < ARRAY_SIZE(f2_names); i++) {
		if (name[0] != f2_names[i][0] ||
		    strncmp(name, f2_names[i], f2_lens[i]))
			continue;
		for (j = 0; j < ARRAY_SIZE(f2_suffixes); j++)
			if (!strcmp(name + f2_lens[i], f2_suffixes[j]))
				return &f2_addrs[i][j];
	}
	return NULL;
}

static int f2_walk_one(void *data, const char *name, struct module *mod,
		       unsigned long addr)
{
	unsigned long *slot = f2_slot(name);

	if (slot && !*slot)
		*slot = addr;
	return 0;
}

static void f2_walk(void)
{
	typeof(&kallsyms_on_each_symbol) walk;
	unsigned long addr;
	int i;

	/* not built everywhere (livepatch only, on some kernels) */
	addr = f2_kallsyms_lookup_name("kallsyms_on_each_symbol");
	if (!addr || !f2_callable(addr, NULL))
		return;
	for (i = 0; i < ARRAY_SIZE(f2_names); i++)
		f2_lens[i] = strlen(f2_names[i]);
	walk = (void *)addr;
	walk(f2_walk_one, NULL);
	f2_walked = true;
}
#else
static void f2_walk(void)
{
}
#endif

int f2_symbols_init(void)
{
	struct kprobe kp = { .symbol_name = "kallsyms_lookup_name" };
	unsigned long addr;
	int err;
#ifdef CONFIG_X86_KERNEL_IBT
	u32 insn;
#endif

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
	 * ENDBR, or past the NOP that sealed it: the function starts there.
	 */
	insn = *(u32 *)(addr - ENDBR_INSN_SIZE);
	if (insn == gen_endbr() || insn == gen_endbr_poison())
		addr -= ENDBR_INSN_SIZE;
#endif
	if (!f2_callable(addr, "kallsyms_lookup_name"))
		return -EOPNOTSUPP;
	f2_kallsyms_lookup_name = (void *)addr;
	f2_walk();
	/* data: found where kallsyms has data symbols (KALLSYMS_ALL) */
	f2_ftrace_disabled = (int *)f2_lookup_name("ftrace_disabled");
	return 0;
}

/*
 * Whether an ftrace bug has disabled ftrace (ftrace_kill()): every
 * unregistration then fails, and on some kernels with a WARN before it
 * gives up; better not to try. Without the symbol (no KALLSYMS_ALL), the
 * unregistration's own error tells, after that WARN on 5.10 to 6.4 (and
 * on a call site shared with another ftrace user, 452 is then ENOSYS).
 */
bool f2_ftrace_dead(void)
{
	return f2_ftrace_disabled && READ_ONCE(*f2_ftrace_disabled);
}

/*
 * Indirect Branch Tracking (CONFIG_X86_KERNEL_IBT, 5.18+, enforced on CPUs
 * that have it unless booted with ibt=off): an indirect call must land on
 * an ENDBR64. At boot the kernel seals (overwrites with a NOP) the ENDBR of
 * every function whose address it never takes, and the two functions the
 * module calls through a pointer, kallsyms_lookup_name() and
 * security_path_chmod(), are neither exported nor address-taken: calling
 * a sealed one is a control-protection fault, in the second case with
 * i_rwsem and mount write access held. The module calls them only where
 * IBT is not enforced or they kept their ENDBR, and refuses to load
 * otherwise. (QEMU's TCG does not enforce IBT: this is argued, not shown.)
 * NAME NULL: a function the module can do without, no log line.
 */
bool f2_callable(unsigned long addr, const char *name)
{
#ifdef CONFIG_X86_KERNEL_IBT
	if (cpu_feature_enabled(X86_FEATURE_IBT) &&
	    *(u32 *)addr != gen_endbr()) {
		if (name)
			pr_err("Indirect Branch Tracking is enforced and %s has no ENDBR (sealed): the module cannot call it; boot with ibt=off to use it\n",
			       name);
		return false;
	}
#endif
	return true;
}

unsigned long f2_lookup_name(const char *name)
{
#ifdef F2_HAVE_KSYMS_WALK
	unsigned long *slot = f2_walked ? f2_slot(name) : NULL;

	if (slot)
		return *slot;
#endif
	return f2_kallsyms_lookup_name(name);
}

/*
 * The size of the kernel function that starts at @addr, as kallsyms knows
 * it ("name+0x0/0xSIZE": the distance to the next symbol, padding
 * included): 0 when @addr is not the start of a symbol. Load time only
 * (a static buffer: KSYM_SYMBOL_LEN is large for the stack).
 */
unsigned long f2_symbol_size(unsigned long addr)
{
	static char buf[KSYM_SYMBOL_LEN];
	unsigned long size;
	char *off, *end;

	sprint_symbol(buf, addr);
	off = strstr(buf, "+0x0/");
	if (!off)
		return 0;
	end = strchr(off + 5, ' ');
	if (end)
		*end = '\0';
	if (kstrtoul(off + 5, 16, &size))
		return 0;
	return size;
}

/*
 * The address of the function @name, or of a copy GCC made of it (a
 * static function may be emitted under a suffixed name), the @nth found
 * (from 0); 0 when there is no such one.
 */
unsigned long f2_lookup_variant(const char *name, int nth)
{
	static char buf[KSYM_NAME_LEN];
	unsigned long addr;
	int i;

	for (i = 0; i < ARRAY_SIZE(f2_suffixes); i++) {
		snprintf(buf, sizeof(buf), "%s%s", name, f2_suffixes[i]);
		addr = f2_lookup_name(buf);
		if (addr && nth-- == 0)
			return addr;
	}
	return 0;
}
