// SPDX-License-Identifier: GPL-2.0
/*
 * arm64: how system call 452 reaches the module.
 *
 * invoke_syscall() calls sys_ni_syscall() (through do_ni_syscall()) for a
 * number past the table, native and AArch32 alike, after ptrace and
 * seccomp. An IP-modifying ftrace hook on sys_ni_syscall() sends the call
 * to f2_fchmodat2() when the number is 452; every other system
 * call never passes here, so they pay nothing.
 *
 * The hook is set on sys_ni_syscall()'s address alone.
 * available_filter_functions lists sys_ni_syscall several times: the
 * other entries are the bodies of weak COND_SYSCALL() stubs that a real
 * system call overrode, which kallsyms no longer names and nothing calls.
 * Hooking them too would cost nothing at run time but a bigger filter
 * hash, which ftrace searches on every call that does come here. The
 * number is read from pt_regs->syscallno, which a tracer rewriting the
 * number changes (regs[8] it does not).
 */
#include <linux/ftrace.h>
#include <linux/ptrace.h>
#include <linux/compat.h>
#include <linux/rcupdate.h>
#include <linux/module.h>
#include <linux/bitops.h>
#include <asm/insn.h>
#include "fchmodat2.h"

const char *f2_arch_mechanism(void)
{
	return "arm64 sys_ni_syscall ftrace hook";
}

int f2_arch_native_present(void)
{
	return f2_lookup_name("__arm64_sys_fchmodat2") != 0;
}

/*
 * Where the hook sends a 452 call, holding a module reference taken in
 * the hook: an rmmod is refused while it runs ("in use"). Past
 * module_put() only the return is left, which f2_arch_hook_remove()
 * waits for.
 */
static long f2_arm64_serve(int dfd, const char __user *filename,
			   umode_t mode, unsigned int flags)
{
	long ret = f2_fchmodat2(dfd, filename, mode, flags);

	module_put(THIS_MODULE);
	return ret;
}

/* Once the module can never leave (f2_staying): no reference to drop. */
static long f2_arm64_serve_staying(int dfd, const char __user *filename,
				   umode_t mode, unsigned int flags)
{
	return f2_fchmodat2(dfd, filename, mode, flags);
}

/*
 * sys_ni_syscall() takes no arguments: the hook gives f2_arm64_serve() the
 * ones the task entered with (as a tracer may have rewritten them), and
 * returns into it instead. ftrace restores x0-x8 and the PC from the saved
 * registers, so the handler runs with its own arguments and returns to
 * do_ni_syscall() as sys_ni_syscall() would have. Callbacks run with
 * preemption off (the ops belongs to a module, so ftrace calls it through
 * its list function, which disables preemption around the callbacks),
 * and unregister_ftrace_function() waits for them: a task either has its
 * reference when the unload starts, or never leaves sys_ni_syscall(),
 * whose -ENOSYS is then the answer, as without the module.
 */
static void notrace f2_arm64_ftrace(unsigned long ip, unsigned long parent_ip,
				    struct ftrace_ops *op,
				    F2_FTRACE_REGS *fregs)
{
	struct pt_regs *regs = f2_ftrace_get_regs(fregs);
	const struct pt_regs *user = current_pt_regs();
	void *serve;

	if (user->syscallno != F2_NR_FCHMODAT2 || !regs)
		return;
	if (try_module_get(THIS_MODULE))
		serve = f2_arm64_serve;
	else if (READ_ONCE(f2_staying))
		serve = f2_arm64_serve_staying;
	else
		return;
	regs->regs[0] = (int)user->regs[0];
	if (is_compat_task())
		regs->regs[1] = (unsigned long)compat_ptr((u32)user->regs[1]);
	else
		regs->regs[1] = user->regs[1];
	regs->regs[2] = (umode_t)user->regs[2];
	regs->regs[3] = (unsigned int)user->regs[3];
	/* The saved PC: ftrace_instruction_pointer_set() is a no-op here. */
	instruction_pointer_set(regs, (unsigned long)serve);
}

/*
 * PERMANENT: while the hook is registered, "sysctl kernel.ftrace_enabled=0"
 * is refused (EBUSY) instead of silently turning 452 back into ENOSYS.
 */
static struct ftrace_ops f2_arm64_ops = {
	.func = f2_arm64_ftrace,
	.flags = FTRACE_OPS_FL_SAVE_REGS | FTRACE_OPS_FL_IPMODIFY |
		 FTRACE_OPS_FL_PERMANENT,
};

/*
 * Hook sys_ni_syscall()'s ftrace call site, by its exact address: given a
 * function's own address, ftrace searches the whole extent kallsyms gives
 * the symbol, which here runs on over the nameless stubs that follow it,
 * and may take one of theirs. The call site is the function's second
 * instruction (its third after a BTI landing pad); ftrace refuses any
 * other address inside a function with -EINVAL.
 */
static unsigned long f2_arm64_ip;

static int f2_arm64_set_filter(unsigned long addr)
{
	int i, err = -EINVAL;

	for (i = 1; i <= 2 && err == -EINVAL; i++) {
		f2_arm64_ip = addr + i * AARCH64_INSN_SIZE;
		err = ftrace_set_filter_ip(&f2_arm64_ops, f2_arm64_ip, 0, 0);
	}
	return err;
}

/*
 * The target of the direct branch @insn at @pc: B, BL (imm26), B.cond,
 * CBZ, CBNZ (imm19), TBZ, TBNZ (imm14); 0 for any other instruction.
 * Every arm64 instruction is one aligned word: no decoding can go astray.
 */
static unsigned long f2_arm64_branch_target(u32 insn, unsigned long pc)
{
	if (aarch64_insn_is_b(insn) || aarch64_insn_is_bl(insn))
		return pc + (long)sign_extend32((insn & 0x03ffffff) << 2, 27);
	if (aarch64_insn_is_bcond(insn) || aarch64_insn_is_cbz(insn) ||
	    aarch64_insn_is_cbnz(insn))
		return pc + (long)sign_extend32(((insn >> 5) & 0x7ffff) << 2,
						20);
	if (aarch64_insn_is_tbz(insn) || aarch64_insn_is_tbnz(insn))
		return pc + (long)sign_extend32(((insn >> 5) & 0x3fff) << 2,
						15);
	return 0;
}

/* Whether the function at @from holds a direct branch to @to. */
static bool f2_arm64_branches_to(unsigned long from, unsigned long to)
{
	unsigned long size = f2_symbol_size(from), p;
	u32 insn;

	for (p = from; p + AARCH64_INSN_SIZE <= from + size;
	     p += AARCH64_INSN_SIZE) {
		insn = le32_to_cpu(*(__le32 *)p);
		if (f2_arm64_branch_target(insn, p) == to)
			return true;
	}
	return false;
}

/*
 * The code the hook relies on, checked before it is placed: the system
 * call dispatcher, invoke_syscall() (or what GCC inlined it into:
 * el0_svc_common() and its callers; do_ni_syscall() where it stayed a
 * function), branches to sys_ni_syscall(). A kernel laid out otherwise,
 * or patched there (a kprobe's BRK over the call), is refused with one
 * line, not guessed at.
 */
static int f2_arm64_check_dispatch(unsigned long ni)
{
	static const char * const names[] = {
		"invoke_syscall", "el0_svc_common", "do_el0_svc",
		"do_el0_svc_compat", "do_ni_syscall",
	};
	unsigned long addr;
	int i, n;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		for (n = 0; (addr = f2_lookup_variant(names[i], n)); n++)
			if (f2_arm64_branches_to(addr, ni))
				return 0;
	pr_err("invoke_syscall (or what it is inlined into) does not branch to sys_ni_syscall, or is patched there (e.g. by a kprobe): unsupported kernel\n");
	return -EOPNOTSUPP;
}

int f2_arch_hook_install(void)
{
	unsigned long addr = f2_lookup_name("sys_ni_syscall");
	int err;

	if (!addr) {
		pr_err("sys_ni_syscall not found: unsupported kernel\n");
		return -ENOENT;
	}
	err = f2_arm64_check_dispatch(f2_check_addr(addr));
	if (err)
		return err;
	err = f2_fault(2, f2_arm64_set_filter(addr));
	if (err) {
		pr_err("sys_ni_syscall has no ftrace call site where expected (ftrace_set_filter_ip: %d): unsupported kernel\n",
		       err);
		return err;
	}
	/* Last: nothing can fail once tasks can enter the handler. */
	err = f2_fault(3, register_ftrace_function(&f2_arm64_ops));
	if (err) {
		if (err == -EBUSY)
			pr_err("sys_ni_syscall is already owned by another ftrace user with IP-modify (e.g. a livepatch), or kernel.ftrace_enabled is 0: %d\n",
			       err);
		else
			pr_err("cannot hook sys_ni_syscall (register_ftrace_function: %d)\n",
			       err);
		goto out_free_filter;
	}
	return 0;

out_free_filter:
	f2_ftrace_free_filter(&f2_arm64_ops, f2_arm64_ip);
	return err;
}

void f2_arch_hook_remove(void)
{
	int err;

	if (f2_ftrace_dead())
		f2_stay_forever("sys_ni_syscall", -ENODEV);
	err = unregister_ftrace_function(&f2_arm64_ops);
	if (err)
		f2_stay_forever("sys_ni_syscall", err);
	f2_ftrace_free_filter(&f2_arm64_ops, f2_arm64_ip);
	/*
	 * No task is left in the callback: unregister_ftrace_function() has
	 * waited for that. Each task it sent to f2_arm64_serve() held a
	 * reference, so the unload began after its module_put(); wait for
	 * the return after it: on a preemptible kernel (TASKS_RCU) until
	 * each task has scheduled voluntarily or gone back to user space;
	 * otherwise this is synchronize_rcu(), until every CPU has scheduled.
	 */
	synchronize_rcu_tasks();
	f2_wait_forced_unload();
}
